"""Running the server: stdio, or streamable HTTP on loopback (a token is required for any other address).

HTTP rules (as ``kite serve``): the default host is 127.0.0.1; a non-loopback host without ``--token`` is
refused (UsageError); with a token every request needs ``Authorization: Bearer <token>``. Without a token
(any loopback address, in any spelling: ``127.0.0.2``, ``0:0:0:0:0:0:0:1``) the SDK's DNS-rebinding protection
is configured for the address actually listened on: a request whose Host is not that address (or a literal
loopback name) gets 421 and one whose Origin is foreign gets 403, so a web page that rebinds its own name to
the address cannot drive the browser.
"""

from __future__ import annotations

import ipaddress
import sys
from collections.abc import Callable

from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp, Receive, Scope, Send

from kite_browser.agent.base.httpserve import (
    LOOPBACK_NAMES,
    BearerToken,
    check_http_options,
    is_loopback,
    serve_asgi,
    url_host,
)
from kite_browser.agent.mcp.hub import SHARED
from kite_browser.agent.mcp.server import KiteMCP

__all__ = [
    "BearerToken",
    "check_http_options",
    "host_checks",
    "http_app",
    "is_loopback",
    "run_http",
    "run_stdio",
]


class SessionEnd:
    """ASGI middleware: a client session that ended (its DELETE, or the SDK's idle timeout) gets its isolated
    browser context closed, checked after every request against the session manager's live sessions."""

    def __init__(self, app: ASGIApp, kite: KiteMCP) -> None:
        self.app = app
        self.kite = kite

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, send)
        if scope["type"] != "http" or not self.kite.hub.isolated:
            return
        live = getattr(self.kite.server.session_manager, "_server_instances", None)
        if live is None:
            return
        for sid in [k for k in self.kite.hub.clients if k not in live and k != SHARED]:
            await self.kite.hub.drop_client(sid)
            self.kite.record.write("session_end", client=sid)


def host_checks(host: str) -> TransportSecuritySettings:
    """The SDK's Host/Origin checks for a server listening on ``host``: its own spellings (as given, and an IP
    address's compressed form) and the literal loopback names, on any port."""
    names = {host, *LOOPBACK_NAMES}
    try:
        names.add(ipaddress.ip_address(host.strip("[]")).compressed)
    except ValueError:
        pass
    hosts = sorted(url_host(n.strip("[]")) for n in names)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{h}:*" for h in hosts],
        allowed_origins=[f"{scheme}://{h}:*" for h in hosts for scheme in ("http", "https")],
    )


def http_app(kite: KiteMCP, *, host: str, token: str | None) -> ASGIApp:
    """The ASGI app: with a token, the token guards every request (the Host may be any name the machine has);
    without one, the Host/Origin checks for the address listened on (``host_checks``)."""
    security = None if token else host_checks(host)
    app: ASGIApp = SessionEnd(kite.server.streamable_http_app(host=host, transport_security=security), kite)
    return BearerToken(app, token) if token else app


async def run_stdio(kite: KiteMCP) -> None:
    """Serve one client over stdin/stdout, in the protocol era its first request opens (the handshake,
    or 2026-07-28 requests); returns when stdin closes."""
    from mcp.server.runner import serve_dual_era_loop
    from mcp.server.stdio import stdio_server

    server = kite.server
    try:
        async with stdio_server() as (read, write), server.lifespan(server) as state:
            await serve_dual_era_loop(
                server, read, write, lifespan_state=state, init_options=server.create_initialization_options()
            )
    except* (BrokenPipeError, ConnectionResetError):
        pass  # the client went away while an answer was being written: nothing to tell anyone


async def run_http(
    kite: KiteMCP, *, host: str, port: int, token: str | None, ready: Callable[[str], None] | None = None
) -> None:
    check_http_options(host, token)

    def started(bound: int) -> None:
        url = f"http://{url_host(host)}:{bound}/mcp"
        if ready is not None:
            ready(url)
        else:
            print(f"kite mcp: listening on {url}", file=sys.stderr, flush=True)

    await serve_asgi(http_app(kite, host=host, token=token), host, port, ready=started)
