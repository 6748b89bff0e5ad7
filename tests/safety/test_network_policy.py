"""One network policy for every channel a page has, in a real Chromium: redirect chains followed to their end
(11 hops, a POST kept by 307s), WebRTC's STUN (UDP) and TURN (TCP) towards a blocked host, and every spelling of
the default loopback (``localhost``, ``foo.localhost``, ``localhost.``, ``[::1]``, ``0.0.0.0``) compared as the
address the browser reaches. Each server records what reaches it: a blocked host must get nothing."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.async_api import BrowserContext, Error

from kite_browser.evals.sites import SitesServer
from kite_browser.safety.domains import MAX_REDIRECTS, DomainPolicy


class _DualStackServer(ThreadingHTTPServer):
    address_family = socket.AF_INET6


class Recorder:
    """Records every request; ``/hop/N`` answers ``status`` to ``/hop/N+1`` until ``hops``, then to ``end``."""

    def __init__(self, host: str, *, hops: int = 0, end: str = "", status: int = 302) -> None:
        self.hits: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def _any(self) -> None:
                outer.hits.append(f"{self.command} {self.path}")
                length = int(self.headers.get("content-length") or 0)
                self.rfile.read(length)
                if self.path.startswith("/hop/"):
                    n = int(self.path.rsplit("/", 1)[1])
                    self.send_response(status)
                    self.send_header("location", f"/hop/{n + 1}" if n + 1 < hops else end)
                    self.send_header("content-length", "0")
                    self.end_headers()
                    return
                body = b"<p id=ok>reached</p>"
                self.send_response(200)
                self.send_header("content-type", "text/html")
                self.send_header("access-control-allow-origin", "*")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_HEAD = _any

            def log_message(self, *args: object) -> None:
                pass

        server_class = _DualStackServer if ":" in host else ThreadingHTTPServer
        self.httpd = server_class((host, 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://{'[' + host + ']' if ':' in host else host}:{self.port}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


@pytest.fixture(scope="module")
def evil() -> Iterator[Recorder]:
    server = Recorder("127.0.0.2")
    yield server
    server.httpd.shutdown()


async def test_a_redirect_chain_is_followed_to_its_end(context: BrowserContext, evil: Recorder) -> None:
    """11 hops on an allowed host, then the blocked one: the old probe stopped after 10 and let the rest
    through. A POST kept by 307s was never probed past its first hop."""
    evil.hits.clear()
    long_chain = Recorder("127.0.0.1", hops=11, end=f"{evil.url}/landing")
    post_chain = Recorder("127.0.0.1", hops=3, end=f"{evil.url}/posted", status=307)
    too_long = Recorder("127.0.0.1", hops=MAX_REDIRECTS + 5, end="/fine")
    policy = DomainPolicy(blocked=["127.0.0.2"])
    await policy.install(context)
    try:
        page = await context.new_page()
        with pytest.raises(Error, match="ERR_BLOCKED_BY_CLIENT"):
            await page.goto(f"{long_chain.url}/hop/0")
        page = await context.new_page()
        await page.goto(f"{post_chain.url}/start")
        status = await page.evaluate(
            "u => fetch(u, {method: 'POST', body: 'card=4242'}).then(r => r.status, e => 'refused: ' + e)",
            f"{post_chain.url}/hop/0",
        )
        assert str(status).startswith("refused"), status
        with pytest.raises(Error, match="ERR_BLOCKED_BY_CLIENT"):
            await (await context.new_page()).goto(f"{too_long.url}/hop/0")
        assert evil.hits == []
        landing = next(b for b in policy.blocked_log if b.url.endswith("/landing"))
        assert landing.redirect_from == f"{long_chain.url}/hop/0" and "blocked_domains" in landing.reason
        assert any(b.url.endswith("/posted") for b in policy.blocked_log)
        assert any("longer than 20 hops" in b.reason for b in policy.blocked_log)
        assert [h for h in post_chain.hits if h.startswith("POST")] == ["POST /hop/0"]  # probed, not replayed
    finally:
        for server in (long_chain, post_chain, too_long):
            server.httpd.shutdown()


@pytest.mark.parametrize("blocked", ["127.0.0.1", "localhost"])
async def test_every_spelling_of_the_loopback_is_the_host_it_reaches(
    context: BrowserContext, blocked: str
) -> None:
    """``--blocked-domain 127.0.0.1`` (or ``localhost``) was passed by the other names of the same host."""
    v4, v6 = Recorder("127.0.0.1"), Recorder("::1")
    policy = DomainPolicy(blocked=[blocked])
    await policy.install(context)
    try:
        p = v4.port
        spellings = [
            f"http://localhost:{p}/a",
            f"http://foo.localhost:{p}/b",
            f"http://localhost.:{p}/c",
            f"http://LocalHost:{p}/d",
            f"http://127.1:{p}/e",
            f"http://0.0.0.0:{p}/f",
            f"http://[::ffff:127.0.0.1]:{p}/g",
            f"http://127.0.0.1:{p}/h",
            f"http://[::1]:{v6.port}/i",
            f"http://[0:0:0:0:0:0:0:1]:{v6.port}/j",
        ]
        for url in spellings:
            assert not policy.allows(url), url
            with pytest.raises(Error, match="ERR_BLOCKED_BY_CLIENT"):
                await (await context.new_page()).goto(url)
        assert v4.hits == [] and v6.hits == []
        assert DomainPolicy(blocked=[blocked]).allows("http://127.0.0.2/")  # another loopback address
        assert DomainPolicy(blocked=["127.0.0.2"]).allows(f"http://localhost:{p}/")
    finally:
        v4.httpd.shutdown()
        v6.httpd.shutdown()


class _Listeners:
    """A STUN-like UDP socket and a TURN-like TCP listener on 127.0.0.2 that count what reaches them."""

    def __init__(self) -> None:
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.2", 0))
        self.tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.tcp.bind(("127.0.0.2", 0))
        self.tcp.listen(8)
        self.datagrams = 0
        self.connections = 0
        self.udp.settimeout(0.2)
        self.tcp.settimeout(0.2)
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=f, daemon=True) for f in (self._recv, self._accept)]
        for t in self._threads:
            t.start()

    def _recv(self) -> None:
        while not self._stop.is_set():
            try:
                self.udp.recvfrom(2048)
                self.datagrams += 1
            except OSError:
                continue

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.tcp.accept()
                self.connections += 1
                conn.close()
            except OSError:
                continue

    def close(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(2)
        self.udp.close()
        self.tcp.close()


@pytest.mark.parametrize("policed", [False, True])
async def test_webrtc_cannot_reach_a_blocked_host(
    context: BrowserContext, sites: SitesServer, policed: bool
) -> None:
    """STUN over UDP and TURN over TCP pass no route: under a policy the page has no RTCPeerConnection (top
    page, a fresh iframe, a popup), and the listeners get nothing. Without a policy (the control) they do."""
    ears = _Listeners()
    try:
        if policed:
            await DomainPolicy(blocked=["127.0.0.2"]).install(context)
        page = await context.new_page()
        stun, turn = ears.udp.getsockname()[1], ears.tcp.getsockname()[1]
        await page.goto(sites.url(f"/test/webrtc-ice.html?stun=127.0.0.2:{stun}&turn=127.0.0.2:{turn}"))
        said = await page.text_content("#out")
        for _ in range(50):  # ICE gathering: polled with a deadline (5 s), ends early once both were reached
            if ears.datagrams and ears.connections:
                break
            await asyncio.sleep(0.1)
        if policed:
            assert (
                said == "top: no RTCPeerConnection; iframe: no RTCPeerConnection; popup: no RTCPeerConnection"
            )
            assert (ears.datagrams, ears.connections) == (0, 0)
        else:
            assert said == "top: gathering; iframe: gathering; popup: gathering"
            assert ears.datagrams > 0 and ears.connections > 0
    finally:
        ears.close()
