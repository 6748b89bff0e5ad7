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


HEAP_HOG = "const a = []; for (;;) a.push('x'.repeat(1e6) + Math.random());"
BUFFER_HOG = "const a = []; for (let i = 0; i < 24; i++) { const u = new Uint8Array(5e7); u.fill(1); a.push(u); } return a.length;"


@pytest.mark.parametrize("code", [HEAP_HOG, BUFFER_HOG], ids=["heap", "array-buffers"])
def test_one_call_is_capped_in_memory(harness_factory: Any, code: str) -> None:
    """A call that grows its JavaScript heap, or fills ArrayBuffers (outside V8's heap limit: 1.2 GB were
    held before), answers memory_limit; the next call runs."""
    h: ToolboxHarness = harness_factory(["javascript"], **{"module_settings.javascript.memory_mb": 128})
    err = h.call("run_javascript", {"code": code, "timeout_ms": 60_000})
    assert err["error"] == "memory_limit" and err["memory_mb"] == 128, err
    assert h.ok("run_javascript", {"code": "return input + 1", "input": 1, "timeout_ms": 60_000}) == {
        "result": 2
    }


def test_the_time_limit_is_bounded(harness_factory: Any) -> None:
    h: ToolboxHarness = harness_factory(["javascript"])
    err = h.call("run_javascript", {"code": "return 1", "timeout_ms": 600_000})
    assert err["error"] == "invalid_arguments" and "timeout_ms" in err["message"], err


def test_the_node_fallback_is_off_unless_configured(harness_factory: Any) -> None:
    h: ToolboxHarness = harness_factory(["javascript"], **{"browser.chromium_path": "/nonexistent/chromium"})
    err = h.call("run_javascript", {"code": "return 1"})
    assert err["error"] == "browser_not_available" and "node_fallback" in err["message"], err


ESCAPES = {
    "child_process": "return require('child_process').execSync('id').toString()",
    "process": "return process.binding('spawn_sync')",
    "list_root": "return require('fs').readdirSync('/root')",
    "fetch": "return await fetch('http://127.0.0.2:9/')",
    "global_process": "return globalThis.process.env",
}


def test_the_node_fallback_asks_first_and_is_confined(harness_factory: Any) -> None:
    """Judged as executeJS: refused without approval. Approved, the code has no require, process, fetch or
    files outside its temporary folder (it ran `child_process.execSync("id")` and listed /root before)."""
    off = {"browser.chromium_path": "/nonexistent/chromium", "module_settings.javascript.node_fallback": True}
    asked: ToolboxHarness = harness_factory(["javascript"], **off)
    assert asked.call("run_javascript", {"code": "return 1"})["error"] == "declined"
    h: ToolboxHarness = harness_factory(["javascript"], **off, **{"safety.approve": ["executeJS"]})
    assert h.ok("run_javascript", {"code": "return 6 * 7"})["result"] == 42
    for name, code in ESCAPES.items():
        err = h.call("run_javascript", {"code": code})
        assert err["error"] == "js_execution_failed", (name, err)


def test_the_node_fallback_is_judged_before_it_runs(harness_factory: Any, tmp_path: Path) -> None:
    """Where the code will run is settled before the call is judged: with no Chromium, a rule that blocks
    executeJS refuses the Node.js run with the typed error (nothing asked, nothing run), even with executeJS
    approved; with a Chromium the same rule leaves the sandbox page (no site, no cookies: ``auto``) alone."""
    rules = tmp_path / "rules.yaml"
    rules.write_text(
        yaml.safe_dump({"rules": [{"name": "no-code", "when": {"action": "executeJS"}, "level": "block"}]}),
        encoding="utf-8",
    )
    strict = {"safety.rules_file": str(rules), "safety.approve": ["executeJS"]}
    node: ToolboxHarness = harness_factory(
        ["javascript"],
        **strict,
        **{
            "browser.chromium_path": "/nonexistent/chromium",
            "module_settings.javascript.node_fallback": True,
        },
    )
    err = node.call("run_javascript", {"code": "return 1"})
    assert set(err) >= {"error", "message"} and err["error"] == "blocked", err
    assert "no-code" in err["message"], err
    sandbox: ToolboxHarness = harness_factory(["javascript"], **strict)
    assert sandbox.ok("run_javascript", {"code": "return 6 * 7"})["result"] == 42
