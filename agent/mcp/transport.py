"""Running the server: stdio, or streamable HTTP on loopback (a token is required for any other address).

HTTP rules (as ``kite serve``): the default host is 127.0.0.1; a non-loopback host without ``--token`` is
refused (UsageError); with a token every request needs ``Authorization: Bearer <token>``. On loopback the
SDK's DNS-rebinding protection (Host / Origin checks) is on.
"""

from __future__ import annotations

import hmac
import ipaddress
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from agent.errors import UsageError
from agent.mcp.hub import SHARED
from agent.mcp.server import KiteMCP

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_http_options(host: str, token: str | None) -> None:
    if not is_loopback(host) and not token:
        raise UsageError(
            f"--host {host} is reachable from other machines: give --token SECRET (clients then send "
            "'Authorization: Bearer SECRET'), or keep the default 127.0.0.1"
        )


class BearerToken:
    """ASGI middleware: 401 unless the request carries ``Authorization: Bearer <token>``."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict[str, Any], receive: Callable[[], Awaitable[Any]], send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                body = b'{"error": "unauthorized", "message": "missing or wrong bearer token"}'
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


class SessionEnd:
    """ASGI middleware: a client session that ended (its DELETE, or the SDK's idle timeout) gets its isolated
    browser context closed, checked after every request against the session manager's live sessions."""

    def __init__(self, app: Any, kite: KiteMCP) -> None:
        self.app = app
        self.kite = kite

    async def __call__(self, scope: dict[str, Any], receive: Callable[[], Awaitable[Any]], send: Any) -> None:
        await self.app(scope, receive, send)
        if scope["type"] != "http" or not self.kite.hub.isolated:
            return
        live = getattr(self.kite.server.session_manager, "_server_instances", None)
        if live is None:
            return
        for sid in [k for k in self.kite.hub.clients if k not in live and k != SHARED]:
            await self.kite.hub.drop_client(sid)
            self.kite.record.write("session_end", client=sid)


def http_app(kite: KiteMCP, *, host: str, token: str | None) -> Any:
    app: Any = SessionEnd(kite.server.streamable_http_app(host=host), kite)
    return BearerToken(app, token) if token else app


async def run_stdio(kite: KiteMCP) -> None:
    """Serve one client over stdin/stdout in the handshake era (see server.py); returns when stdin closes."""
    from mcp.server.runner import serve_loop
    from mcp.server.stdio import stdio_server

    server = kite.server
    try:
        async with stdio_server() as (read, write), server.lifespan(server) as state:
            await serve_loop(
                server, read, write, lifespan_state=state, init_options=server.create_initialization_options()
            )
    except* (BrokenPipeError, ConnectionResetError):
        pass  # the client went away while an answer was being written: nothing to tell anyone


async def run_http(
    kite: KiteMCP, *, host: str, port: int, token: str | None, ready: Callable[[str], None] | None = None
) -> None:
    import asyncio
    import contextlib
    import socket

    import uvicorn

    check_http_options(host, token)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    config = uvicorn.Config(http_app(kite, host=host, token=token), log_level="warning")
    server = uvicorn.Server(config)
    server.capture_signals = contextlib.nullcontext  # type: ignore[method-assign,assignment]  # app.serve
    task = asyncio.ensure_future(server.serve(sockets=[sock]))
    while not server.started:  # startup is quick: the socket is already bound
        if task.done():
            raise UsageError(f"the HTTP server on {host}:{port} did not start")
        await asyncio.sleep(0.05)
    bound = sock.getsockname()[1]
    url = f"http://{host if ':' not in host else f'[{host}]'}:{bound}/mcp"
    if ready is not None:
        ready(url)
    else:
        print(f"kite mcp: listening on {url}", file=sys.stderr, flush=True)
    try:
        await task
    finally:
        if not task.done():
            server.should_exit = True
            await asyncio.wait([task], timeout=5)
