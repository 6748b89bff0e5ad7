"""The FastAPI app of ``kite serve``: routes, typed errors, the token, the body limit, CORS and the panel.

Layers, outermost first: CORS (only when ``server.cors_origins`` names origins) → the bearer token (every path
under ``/api``; the panel's static files load without it) → the body limit → FastAPI. The module routers are
mounted at ``/api/modules/<name>`` once the modules are loaded (the app's lifespan).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.staticfiles import StaticFiles
from starlette.routing import Match, Mount
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kite_browser.agent import __version__
from kite_browser.agent.base.httpserve import BearerToken
from kite_browser.agent.server import modules_api, runs_api, settings_api
from kite_browser.agent.server.errors import COMMON, install_handlers, responses
from kite_browser.agent.server.state import ServerState

STATIC_DIR = Path(__file__).with_name("static")
FORM = b"application/x-www-form-urlencoded"
TOO_LARGE = b'{"error": "body_too_large", "message": "the request body is larger than %d bytes"}'


class BodyLimit:
    """ASGI middleware: a request body larger than ``limit`` bytes answers 413 ``body_too_large`` (read in
    full before the app sees it; bodies here are small JSON objects). A body sent without a Content-Type, or
    as ``application/x-www-form-urlencoded`` (what ``curl -d`` sends unless told otherwise), is read as JSON:
    no route takes a form, and the bearer token in a header already keeps cross-site forms out."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS", "DELETE"):
            return await self.app(scope, receive, send)
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            return await self._refuse(send)
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                return await self._refuse(send)
            chunks.append(chunk)
            if not message.get("more_body"):
                break
        body, sent = b"".join(chunks), False
        headers = scope.get("headers") or []
        declared_type = dict(headers).get(b"content-type", b"").split(b";")[0].strip().lower()
        if body.strip() and declared_type in (b"", FORM):
            kept = [(k, v) for k, v in headers if k != b"content-type"]
            scope = {**scope, "headers": [*kept, (b"content-type", b"application/json")]}  # JSON by default

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return dict(await receive())

        return await self.app(scope, replay, send)

    async def _refuse(self, send: Send) -> None:
        body = TOO_LARGE % self.limit
        headers = [(b"content-type", b"application/json"), (b"connection", b"close")]
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def _protected(path: str) -> bool:
    return path == "/api" or path.startswith("/api/")


class PanelMount(Mount):
    """The panel's files at ``/``, never answering for ``/api/...`` (an unknown API path is a JSON 404, a
    wrong method a 405 naming the route's methods, not the file server's idea of either)."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if _protected(scope.get("path", "")):
            return Match.NONE, {}
        return super().matches(scope)


def create_app(state: ServerState, *, static_dir: Path | None = None) -> FastAPI:
    """The app for ``state``; its lifespan loads the modules and, at the end, stops runs and closes all."""

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await state.start()
        for name, module_router in state.registry.http_routers().items():
            app.include_router(
                module_router,
                prefix=f"/api/modules/{name}",
                tags=[f"module: {name}"],
                responses=responses(*COMMON),
            )
        app.router.routes.sort(key=lambda r: isinstance(r, Mount))  # the panel's catch-all mount last
        app.openapi_schema = None
        app.state.method_table = None
        try:
            yield
        finally:
            await state.close()

    app = FastAPI(
        title="Kite",
        version=__version__,
        summary="Kite's HTTP API: modules, tools, agent runs with live events and confirmations.",
        docs_url=None,
        redoc_url=None,
        openapi_url="/api/openapi.json",
        lifespan=lifespan,
        responses=responses(*COMMON),
    )
    app.state.kite = state
    install_handlers(app)
    app.include_router(modules_api.router())
    app.include_router(runs_api.router())
    app.include_router(settings_api.router())
    folder = static_dir or STATIC_DIR
    app.router.routes.append(
        PanelMount("/", app=StaticFiles(directory=folder, html=True, check_dir=False), name="panel")
    )
    app.add_middleware(BodyLimit, limit=state.config.server.max_body_bytes)
    app.add_middleware(BearerToken, token=state.token, protects=_protected, query_param="access_token")
    if state.config.server.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(state.config.server.cors_origins),
            allow_methods=["GET", "POST"],
            allow_headers=["Authorization", "Content-Type", "Last-Event-ID"],
        )
    return app
