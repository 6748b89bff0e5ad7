"""``domains.allow_loopback: false`` at the network layer, end to end through ``Agent.run`` (the scripted model
over litellm): a page on the allowed host (127.0.0.1:<port>) reaches for two other loopback hosts — 127.0.0.2
and 127.0.0.1 on another port — in every way a page can: img, iframe, fetch, XHR, beacon, EventSource,
WebSocket, a form POST, meta refresh, window.open, a redirect, and a service worker (its own fetch and
WebSocket). None of them may arrive; each must show up in the policy's blocked log."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from kite_browser.agent.run.loop import Agent

KINDS = ("img", "iframe", "fetch", "xhr", "beacon", "sse", "ws", "form", "meta", "popup", "redir", "sw.js")
"""What the policy must log as blocked: every page request, and the service worker's script (a service
worker's WebSocket passes no route, so none is installed; its fetch and WebSocket must never arrive)."""


class Recorder:
    """A loopback server that records every request (any method, WebSocket handshakes included)."""

    def __init__(self, host: str, pages: dict[str, tuple[int, str, str]] | None = None) -> None:
        self.hits: list[str] = []
        outer, pages = self, pages or {}

        class Handler(BaseHTTPRequestHandler):
            def _any(self) -> None:
                outer.hits.append(self.path)
                status, ctype, body = pages.get(self.path.split("?")[0], (200, "text/plain", "evil"))
                self.send_response(status)
                self.send_header("content-type", ctype)
                if status in (301, 302):
                    self.send_header("location", body)
                    body = ""
                self.send_header("content-length", str(len(body.encode())))
                self.end_headers()
                self.wfile.write(body.encode())

            do_GET = do_POST = do_HEAD = _any

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer((host, 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://{host}:{self.port}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


def attack_page(target: str) -> str:
    ws = target.replace("http://", "ws://")
    return f"""<!doctype html><meta charset=utf-8><title>Reviews</title><p id=ok>reviews</p>
<img src="{target}/img"><img src="/redir">
<iframe src="{target}/iframe"></iframe>
<iframe srcdoc="<meta http-equiv=refresh content='0;url={target}/meta'>"></iframe>
<iframe name=sink></iframe><form id=f method=post action="{target}/form" target=sink><input name=a value=1></form>
<script>
fetch("{target}/fetch").catch(() => {{}});
const x = new XMLHttpRequest(); x.open("GET", "{target}/xhr"); x.onerror = () => {{}}; x.send();
navigator.sendBeacon("{target}/beacon", "x");
new EventSource("{target}/sse");
try {{ new WebSocket("{ws}/ws"); }} catch (e) {{}}
document.getElementById("f").submit();
window.open("{target}/popup");
navigator.serviceWorker.register("/sw.js");
</script>"""


def service_worker(target: str) -> str:
    ws = target.replace("http://", "ws://")
    return f"""self.addEventListener("install", (e) => {{
  self.skipWaiting();
  e.waitUntil(fetch("{target}/sw").catch(() => null));
  try {{ new WebSocket("{ws}/sw-ws"); }} catch (err) {{}}
}});"""


@pytest.fixture(scope="module")
def hosts() -> Iterator[tuple[Recorder, Recorder, Recorder, Recorder]]:
    evil, other_port = Recorder("127.0.0.2"), Recorder("127.0.0.1")
    sites = []
    for target in (evil, other_port):
        sites.append(
            Recorder(
                "127.0.0.1",
                {
                    "/": (200, "text/html", attack_page(target.url)),
                    "/sw.js": (200, "application/javascript", service_worker(target.url)),
                    "/redir": (302, "", f"{target.url}/redir"),
                },
            )
        )
    yield evil, other_port, sites[0], sites[1]
    for server in (evil, other_port, *sites):
        server.httpd.shutdown()


def _rules(tmp_path: Path) -> str:
    path = tmp_path / "rules.yaml"
    path.write_text("domains:\n  allow_loopback: false\n", encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("which", ["other-host", "other-port"])
async def test_no_request_reaches_another_loopback_host(
    kite_config, browser_session, tmp_path: Path, scripted_model, hosts, which: str
) -> None:
    evil, other_port, via_evil, via_port = hosts
    target, site = (evil, via_evil) if which == "other-host" else (other_port, via_port)
    target.hits.clear()
    config = kite_config(
        **{"safety.allowed_domains": [f"127.0.0.1:{site.port}"], "safety.rules_file": _rules(tmp_path)}
    )
    scripted_model.script([{"name": "done", "arguments": {"success": True, "answer": "read"}}])
    ctx = await browser_session.new_context(downloads_dir=tmp_path / "downloads")
    try:
        agent = Agent(config, context=ctx)
        result = await agent.run("read the reviews", start_url=site.url + "/")
        assert result.success, result
        domains = agent.safety.domains
        log = domains.blocked_log if domains else []

        def seen() -> set[str]:
            blocked = {b.url.rsplit("/", 1)[-1].split("?")[0] for b in log}
            return blocked | {h.lstrip("/").split("?")[0] for h in target.hits}

        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not set(KINDS) <= seen():
            await ctx.page.wait_for_timeout(100)  # polling a condition with a deadline
        assert target.hits == [], f"reached {target.url}: {target.hits}"
        blocked = {b.url.rsplit("/", 1)[-1].split("?")[0] for b in log}
        assert set(KINDS) <= blocked, sorted(set(KINDS) - blocked)
    finally:
        await ctx.close()
