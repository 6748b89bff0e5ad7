"""Allowed / blocked domains, decided per URL and enforced at the network layer of a browser context.

Hosts are compared as the browser connects to them (``canonical_host``): an entry or URL written in Unicode
(``bücher.example``) matches its punycode form, ``0x7f.1``/``2130706433``/``[::ffff:127.0.0.1]`` are
127.0.0.1, and a backslash in ``http://evil.test\\@good.test`` ends the host as a slash does.

Semantics: an entry names a domain and all its subdomains (``example.com`` covers ``shop.example.com``);
``host:port`` limits it to one port; a scheme, path or leading ``*.`` is ignored. Blocked wins. An empty
allow list allows everything not blocked. ``about:``, ``data:`` and ``blob:`` URLs are always allowed;
other non-network schemes (``file:``, ``javascript:``, ``chrome:``) are left to the executor's own checks.
Loopback hosts (127.0.0.0/8, ``::1``, ``localhost``) are allowed unless blocked, even when an allow list is
set, because Kite's bundled sites and local development servers live there (``allow_loopback=False``
makes them follow the allow list like any host).

Enforcement (``install``): ``context.route("**/*")`` sees the first request of every navigation,
subresource, popup, fetch/XHR/beacon/EventSource and form post; ``context.route_web_socket`` closes a page's
WebSocket to a forbidden host before it connects. A service worker's WebSockets pass neither, so under an
active policy no service worker is installed (its script request is refused). Playwright does not route redirect hops, so for a response that redirects, the
handler fetches it itself (``route.fetch(max_redirects=0)``) and checks every ``Location`` of the chain to its
end (later hops probed with GET, or HEAD where the browser would repeat a POST) before handing the first
response to the browser; a chain longer than Chromium's own limit (20) is refused, never let through. Limit: a
server that answers the probe differently from the browser's own request a moment later.

WebRTC: ICE (STUN over UDP, TURN over TCP) opens connections no route sees, so under an active policy
``RTCPeerConnection`` is removed from every frame and popup of the context before any page script runs.

Loopback spellings: ``localhost``, ``*.localhost``, ``localhost.``, ``127.0.0.1``, ``[::1]`` and the
unspecified ``0.0.0.0``/``[::]`` all reach this machine's default loopback, so an entry naming one of them
covers them all (``--blocked-domain 127.0.0.1`` blocks ``http://foo.localhost:PORT/``); another loopback
address (``127.0.0.2``) is its own host.
"""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias
from urllib.parse import unquote, urljoin, urlsplit

import idna

if TYPE_CHECKING:
    from playwright.async_api import APIResponse, BrowserContext, Request, Route, WebSocketRoute

log = logging.getLogger(__name__)

ALWAYS_ALLOWED_SCHEMES = frozenset({"about", "data", "blob"})
NETWORK_SCHEMES = frozenset({"http", "https", "ws", "wss", "ftp"})
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
RequestCheck: TypeAlias = "Callable[[Request], Awaitable[bool]]"
"""The context's request hold, asked whether a state-changing request (Playwright's ``Request``) may leave."""
MAX_REDIRECTS = 20
"""Chromium's own limit (net::ERR_TOO_MANY_REDIRECTS): a longer chain is refused, not probed further."""
WEBRTC_OFF = """(() => {
  for (const name of ["RTCPeerConnection", "webkitRTCPeerConnection"]) {
    try { delete globalThis[name]; } catch (e) {}
  }
})();"""
"""The init script that removes WebRTC's peer connections (the only way a page starts ICE) under a policy."""


SPECIAL_SCHEMES = frozenset({"http", "https", "ws", "wss", "ftp", "file"})


def _ipv4_number(part: str) -> int | None:
    digits, base = (part[2:], 16) if part[:2] == "0x" else (part[1:], 8) if part[:1] == "0" else (part, 10)
    if not digits:
        return None if base == 10 else 0
    try:
        return int(digits, base) if digits.isalnum() else None
    except ValueError:
        return None


def _ipv4(host: str) -> str | None:
    """The dotted form of a host a browser reads as IPv4 ("2130706433", "127.1", "0x7f.0.0.1"), else None."""
    parts = host.split(".")
    if len(parts) > 1 and parts[-1] == "":
        parts.pop()
    numbers = [_ipv4_number(p) for p in parts]
    if len(numbers) > 4 or None in numbers:
        return None
    *head, last = [n for n in numbers if n is not None]
    if any(n > 255 for n in head) or last >= 256 ** (5 - len(numbers)):
        return None
    return str(ipaddress.IPv4Address(last + sum(n << (8 * (3 - i)) for i, n in enumerate(head))))


def canonical_host(host: str) -> str:
    """A host as the browser connects to it: percent-decoded, IDNA (UTS 46: NFKC, case folded, punycode), an
    IPv4 address written as one number or in hex/octal parts dotted, an IPv4-mapped IPv6 address as IPv4."""
    h = unquote(host).strip().lower().rstrip(".")
    if h.startswith("[") and h.endswith("]"):
        h = h[1:-1]
    if ":" in h:
        try:
            ip = ipaddress.IPv6Address(h)
        except ValueError:
            return h
        return str(ip.ipv4_mapped) if ip.ipv4_mapped else ip.compressed
    try:
        h = idna.encode(h, uts46=True, transitional=False).decode("ascii")
    except (idna.IDNAError, UnicodeError):
        pass
    return _ipv4(h) or h


def host_of(url: str) -> str | None:
    """The canonical host of a URL (None if it has none), read as a browser reads it: a backslash after a
    special scheme is a slash (``http://evil.test\\@good.test/`` goes to evil.test)."""
    url = url.strip()
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    if scheme in SPECIAL_SCHEMES:
        url = url.replace("\\", "/")
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return None
    return canonical_host(host) if host else None


DEFAULT_LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1", "0.0.0.0", "::"})
"""Canonical hosts that reach this machine's default loopback (``0.0.0.0`` connects to it on Linux)."""


def is_loopback(host: str) -> bool:
    host = canonical_host(host)
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    return ip.is_loopback or ip.is_unspecified


def reaches(host: str) -> str:
    """The host as what the browser will reach: every spelling of the default loopback (``localhost``,
    ``*.localhost``, ``[::1]``, ``0.0.0.0``) is ``127.0.0.1``; any other canonical host is itself."""
    if host in DEFAULT_LOOPBACK or host.endswith(".localhost"):
        return "127.0.0.1"
    return host


def site_of(host: str) -> str:
    """A cheap registrable-domain guess: the host for IPs and localhost, else its last two labels."""
    try:
        ipaddress.ip_address(host)
        return host
    except ValueError:
        parts = host.split(".")
        return ".".join(parts[-2:]) if len(parts) > 2 else host


@dataclass(frozen=True)
class _Entry:
    host: str
    port: int | None

    @classmethod
    def parse(cls, text: str) -> _Entry:
        raw = text.strip().lower()
        if "://" not in raw:
            raw = "//" + raw
        parts = urlsplit(raw)
        host = canonical_host((parts.hostname or "").lstrip("*.").rstrip("."))
        if not host:
            raise ValueError(f"not a domain: {text!r}")
        return cls(host, parts.port)

    def covers(self, host: str, port: int | None) -> bool:
        if self.port is not None and self.port != port:
            return False
        if host == self.host or host.endswith("." + self.host):
            return True
        return reaches(host) == reaches(self.host) == "127.0.0.1"


def _port(url: str) -> int | None:
    parts = urlsplit(url)
    try:
        return parts.port or {"http": 80, "https": 443, "ws": 80, "wss": 443}.get(parts.scheme)
    except ValueError:
        return None


@dataclass
class BlockedRequest:
    url: str
    host: str
    reason: str
    resource_type: str = ""
    redirect_from: str | None = None

    def message(self) -> str:
        return f"blocked by domain policy: {self.host}"


class DomainPolicy:
    """Allow/block lists; ``blocked_log`` lists every request that install() aborted."""

    def __init__(
        self, allowed: Iterable[str] = (), blocked: Iterable[str] = (), *, allow_loopback: bool = True
    ) -> None:
        self.allowed_entries = [_Entry.parse(d) for d in allowed]
        self.blocked_entries = [_Entry.parse(d) for d in blocked]
        self.allow_loopback = allow_loopback
        self.blocked_log: list[BlockedRequest] = []

    @property
    def active(self) -> bool:
        """False when nothing can ever be blocked (no lists): install() is then a no-op."""
        return bool(self.allowed_entries or self.blocked_entries)

    def reason(self, url: str) -> str | None:
        """Why ``url`` may not be loaded, or None if it may."""
        scheme = urlsplit(url.strip()).scheme.lower() if ":" in url else ""
        if scheme in ALWAYS_ALLOWED_SCHEMES or (scheme and scheme not in NETWORK_SCHEMES):
            return None
        host = host_of(url)
        if host is None:
            return None if not scheme else f"{url[:60]!r} has no host"
        port = _port(url)
        if any(e.covers(host, port) for e in self.blocked_entries):
            return f"{host} is in blocked_domains"
        if not self.allowed_entries or (self.allow_loopback and is_loopback(host)):
            return None
        if any(e.covers(host, port) for e in self.allowed_entries):
            return None
        return f"{host} is not in allowed_domains"

    def allows(self, url: str) -> bool:
        return self.reason(url) is None

    def last_block_message(self, since: int = 0) -> str | None:
        """'blocked by domain policy: <host>' for the latest block recorded after ``since`` entries."""
        return self.blocked_log[-1].message() if len(self.blocked_log) > since else None

    # ------------------------------------------------------------ network enforcement

    async def install(self, context: BrowserContext, hold: RequestCheck | None = None) -> None:
        """Enforce the policy on a Playwright BrowserContext (navigations, subresources, redirects, popups).
        ``hold``: the context's request hold (``agent/browser/holds.py``), asked about a state-changing
        request this route sees before the browser sends it."""
        if self.active:
            await context.add_init_script(WEBRTC_OFF)
            await context.route("**/*", lambda route, request: self._handle(route, request, context, hold))
            await context.route_web_socket(lambda url: not self.allows(url), self._refuse_websocket)

    def refuse(self, url: str, resource_type: str) -> str | None:
        """Why a request the browser paused may not leave (recorded in ``blocked_log``), or None: the request
        hold (``agent/browser/holds.py``) asks this of the beacons, pings and keepalive fetches no route
        sees."""
        why = self.reason(url) if self.active else None
        if why is not None:
            self._record(url, resource_type.lower(), why=why)
        return why

    async def _refuse_websocket(self, ws: WebSocketRoute) -> None:
        """A page's WebSocket to a forbidden host: never connected to the server, closed at once."""
        self._record(ws.url, "websocket")
        await ws.close(code=1008, reason="blocked by domain policy")

    def _record(
        self, url: str, resource_type: str, redirect_from: str | None = None, why: str | None = None
    ) -> None:
        host = host_of(url) or url[:60]
        entry = BlockedRequest(url, host, why or self.reason(url) or "", resource_type, redirect_from)
        self.blocked_log.append(entry)
        log.info("%s (%s)", entry.message(), entry.reason)

    async def _handle(
        self, route: Route, request: Request, context: BrowserContext, hold: RequestCheck | None = None
    ) -> None:
        url = request.url
        if not self.allows(url):
            self._record(url, request.resource_type)
            await route.abort("blockedbyclient")
            return
        if request.headers.get("service-worker") == "script":
            # A service worker's own WebSockets pass no route, so none may be installed under a domain policy.
            self._record(url, "serviceworker", why="service workers are not allowed under a domain policy")
            await route.abort("blockedbyclient")
            return
        if hold is not None and request.method not in SAFE_METHODS and not await hold(request):
            # the request hold (agent/browser/holds.py) declined this state-changing request: it never leaves
            await route.abort("blockedbyclient")
            return
        if urlsplit(url).scheme not in ("http", "https"):
            await route.fallback()
            return
        try:
            response = await route.fetch(max_redirects=0)
        except Exception:  # the network error will show up the normal way
            await route.fallback()
            return
        if response.status in REDIRECT_STATUSES:
            bad = await self._bad_hop(context, request.method, url, response)
            if bad is not None:
                why = self.reason(bad) or f"a redirect chain longer than {MAX_REDIRECTS} hops"
                self._record(bad, request.resource_type, redirect_from=url, why=why)
                await route.abort("blockedbyclient")
                return
        await route.fulfill(response=response)

    async def _bad_hop(
        self, context: BrowserContext, method: str, url: str, response: APIResponse
    ) -> str | None:
        """The first URL of the redirect chain that the policy forbids (the chain followed to its end), the
        URL where it passes Chromium's limit, or None."""
        for _ in range(MAX_REDIRECTS):
            location = response.headers.get("location")
            if not location:
                return None
            url = urljoin(url, location)
            if not self.allows(url):
                return url
            method = (
                "GET"
                if response.status == 303 or (response.status in (301, 302) and method == "POST")
                else method
            )
            probe = method if method in ("GET", "HEAD") else "HEAD"  # never replay a POST to probe further
            try:
                response = await context.request.fetch(url, method=probe, max_redirects=0)
            except Exception:
                return None  # the browser's own request fails the same way
            if response.status not in REDIRECT_STATUSES:
                return None
        return url
