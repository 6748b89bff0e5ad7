"""``run_javascript`` is a sandbox: its fetch and WebSocket obey allowed/blocked domains (in the Toolbox that
``kite tools call``, ``kite serve`` and ``kite mcp`` share, and through the CLI face), one call's memory is
capped, its time limit is bounded, and the Node.js fallback does not run unless configured."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from kite_browser.agent.config import BrowserConfig
from tests.agent.test_cli_usage_gaps import kite as kite_cli
from tests.modules.conftest import ToolboxHarness


class Evil:
    """A JSON endpoint on 127.0.0.2 that any origin may read (CORS *): it records every request."""

    def __init__(self) -> None:
        self.hits: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.hits.append(self.path)
                body = b'{"stolen": true}'
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("access-control-allow-origin", "*")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.2", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.2:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


@pytest.fixture(scope="module")
def evil() -> Iterator[Evil]:
    server = Evil()
    yield server
    server.httpd.shutdown()


REACH = """
const out = {};
try { out.fetch = await (await fetch(input.url + "/data.json")).json(); } catch (e) { out.fetch = "refused"; }
out.ws = await new Promise((resolve) => {
  const ws = new WebSocket(input.url.replace("http", "ws") + "/ws");
  ws.onmessage = () => resolve("message");
  ws.onclose = (e) => resolve("closed " + e.code);
  setTimeout(() => resolve("timeout"), 3000);
});
return out;
"""


def test_run_javascript_obeys_the_domain_policy(harness_factory: Any, evil: Evil) -> None:
    evil.hits.clear()
    h: ToolboxHarness = harness_factory(["javascript"], **{"safety.blocked_domains": ["127.0.0.2"]})
    out = h.ok("run_javascript", {"code": REACH, "input": {"url": evil.url}, "timeout_ms": 60_000})
    assert out["result"]["fetch"] == "refused", out
    assert out["result"]["ws"].startswith("closed"), out
    assert evil.hits == []
    free: ToolboxHarness = harness_factory(["javascript"])  # the control: without a policy it reads the JSON
    assert free.ok("run_javascript", {"code": REACH, "input": {"url": evil.url}, "timeout_ms": 60_000})[
        "result"
    ]["fetch"] == {"stolen": True}
    assert evil.hits and evil.hits[0] == "/data.json"


def test_kite_tools_call_run_javascript_obeys_blocked_domains(
    browser_config: BrowserConfig, tmp_path: Path, evil: Evil
) -> None:
    evil.hits.clear()
    cfg = {
        "browser": {"chromium_path": browser_config.chromium_path, "block_external_hosts": True},
        "safety": {"blocked_domains": ["127.0.0.2"]},
        "modules": ["javascript"],
    }
    (tmp_path / "kite.yaml").write_text(yaml.safe_dump(cfg), encoding="utf-8")
    args = json.dumps({"code": REACH, "input": {"url": evil.url}, "timeout_ms": 60_000})
    done = kite_cli("--config", str(tmp_path / "kite.yaml"), "tools", "call", "run_javascript", args)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"]["fetch"] == "refused"
    assert evil.hits == []
