"""Serving an ASGI app over HTTP the Kite way, shared by ``kite serve`` and ``kite mcp --http``.

* 127.0.0.1 by default; a non-loopback address without a token is refused (``check_http_options``: a
  UsageError, so the CLI prints one line and exits 2);
* ``BearerToken``: 401 ``{"error": "unauthorized", ...}`` unless the request carries
  ``Authorization: Bearer <token>`` (optionally only for some paths, optionally also ``?access_token=``);
* ``serve_asgi``: uvicorn on a socket bound first (a busy port is a one-line UsageError; port 0 = any free
  port), ``ready(port)`` called once it accepts connections;
* ``until_done_or_terminated``: SIGTERM/SIGHUP (and SIGINT if asked) end the server cleanly, after an
  optional ``before_stop`` (``kite serve`` stops its runs first), so the caller's ``finally`` closes browsers.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import signal
import socket
from collections.abc import Awaitable, Callable, Iterable
from urllib.parse import parse_qs

from starlette.types import ASGIApp, Receive, Scope, Send

from kite_browser.agent.base.errors import UsageError

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
UNAUTHORIZED = b'{"error": "unauthorized", "message": "missing or wrong bearer token"}'


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


def url_host(host: str) -> str:
    """``host`` as it goes in a URL (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host else host


class BearerToken:
    """ASGI middleware: 401 unless the request carries ``Authorization: Bearer <token>``.

    ``protects(path)``: which paths need the token (default: all). ``query_param``: also accept the token as
    this query parameter on GET requests (for an ``EventSource`` or an ``<img>``, which cannot send headers)."""

    def __init__(
        self,
        app: ASGIApp,
        token: str,
        *,
        protects: Callable[[str], bool] | None = None,
        query_param: str | None = None,
    ) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()
        self.token = token.encode()
        self.protects = protects
        self.query_param = query_param

    def _authorized(self, scope: Scope) -> bool:
        given = dict(scope.get("headers") or []).get(b"authorization", b"")
        if hmac.compare_digest(given, self.expected):
            return True
        if self.query_param and scope.get("method") == "GET" and scope.get("query_string"):
            query = parse_qs(scope["query_string"].decode("latin-1"))
            for value in query.get(self.query_param, []):
                if hmac.compare_digest(value.encode("latin-1", "replace"), self.token):
                    return True
        return False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and (self.protects is None or self.protects(scope["path"])):
            if not self._authorized(scope):
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")],
                    }
                )
                await send({"type": "http.response.body", "body": UNAUTHORIZED})
                return
        await self.app(scope, receive, send)


def bind(host: str, port: int) -> socket.socket:
    """A listening-ready socket on ``host:port`` (a UsageError saying why when it cannot be bound)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named explicitly: asyncio sets TCP_NODELAY only on sockets whose proto says TCP; with proto 0
    # every response (headers and body written apart) waited ~40 ms for the client's delayed ACK
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock


async def serve_asgi(
    app: ASGIApp, host: str, port: int, *, ready: Callable[[int], None], graceful_s: float = 5.0
) -> None:
    """Serve ``app`` with uvicorn until cancelled; ``ready(bound_port)`` once it accepts connections."""
    import uvicorn

    sock = bind(host, port)
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=int(graceful_s) or 1)
    server = uvicorn.Server(config)
    server.capture_signals = contextlib.nullcontext  # type: ignore[method-assign,assignment]  # ours
    task = asyncio.ensure_future(server.serve(sockets=[sock]))
    while not server.started:  # startup is quick: the socket is already bound
        if task.done():
            raise UsageError(f"the HTTP server on {host}:{port} did not start")
        await asyncio.sleep(0.05)
    ready(sock.getsockname()[1])
    try:
        await asyncio.shield(task)
    finally:
        if not task.done():
            server.should_exit = True
            await asyncio.wait([task], timeout=graceful_s + 2)


async def until_done_or_terminated(
    runner: asyncio.Future[None],
    *,
    signals: Iterable[signal.Signals] = (signal.SIGTERM, signal.SIGHUP),
    before_stop: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """Await ``runner``; one of ``signals`` stops it (after ``before_stop``), and the caller's ``finally``
    closes the browser: the server then exits 0 with nothing left behind instead of dying in the middle."""
    loop = asyncio.get_running_loop()
    stopped: list[signal.Signals] = []
    tasks: set[asyncio.Task[None]] = set()

    async def stop_after(first: Callable[[], Awaitable[None]]) -> None:
        try:
            await first()
        finally:
            runner.cancel()

    def stop(sig: signal.Signals) -> None:
        if stopped:  # a second signal: stop now
            runner.cancel()
            return
        stopped.append(sig)
        if before_stop is None:
            runner.cancel()
        else:
            tasks.add(loop.create_task(stop_after(before_stop)))

    installed = []
    for sig in signals:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop, sig)
            installed.append(sig)
    try:
        await runner
    except asyncio.CancelledError:
        if not stopped:
            raise
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
