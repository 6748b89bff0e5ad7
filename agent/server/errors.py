"""Every error the HTTP API answers is ``{"error": "<snake_case>", "message": "...", ...context}``.

``ApiError`` is raised by route code; the handlers installed by ``install_handlers`` turn it, FastAPI's
validation errors (malformed JSON → 400 ``invalid_json``, a body or parameter of the wrong shape → 422
``invalid_request``), Starlette's HTTP errors (404 ``not_found``, 405 ``method_not_allowed``) and any bug (500
``internal_error``, never a traceback) into that shape. ``responses(...)`` declares them in the OpenAPI spec.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Mapping

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict
from starlette.exceptions import HTTPException
from starlette.routing import compile_path

log = logging.getLogger("kite.server")


class ErrorBody(BaseModel):
    """A typed error: ``error`` names the kind (snake_case), ``message`` says what happened; some errors add
    context fields (``tool``, ``available``, ``problems`` ...)."""

    model_config = ConfigDict(extra="allow")
    error: str
    message: str


class ApiError(Exception):
    def __init__(self, status: int, error: str, message: str, **context: object) -> None:
        super().__init__(message)
        self.status, self.error, self.message, self.context = status, error, message, context

    def body(self) -> dict[str, object]:
        return {"error": self.error, "message": self.message, **self.context}


def error_response(
    status: int, body: Mapping[str, object], headers: Mapping[str, str] | None = None
) -> JSONResponse:
    return JSONResponse(body, status_code=status, headers=headers)


DESCRIPTIONS = {
    400: "Bad input (malformed JSON, invalid value): a typed error.",
    401: "Missing or wrong bearer token (unauthorized).",
    403: "Refused by the safety policy (blocked, declined).",
    404: "No such thing (unknown module, tool, run, confirmation, screenshot, record file).",
    409: "The request conflicts with the current state (a confirmation already answered, a profile in use).",
    413: "The request body is larger than server.max_body_bytes (body_too_large).",
    422: "The body or a parameter has the wrong shape (invalid_request, naming each problem).",
    429: "Too many runs at once (too_many_runs).",
    503: "The server is shutting down (shutting_down).",
    504: "The tool did not answer in time (tool_timeout).",
}
COMMON = (400, 401, 404, 413, 422)
"""The errors any /api route can answer."""


def responses(*codes: int) -> dict[int | str, dict[str, object]]:
    return {code: {"model": ErrorBody, "description": DESCRIPTIONS[code]} for code in codes}


NAMES = {404: "not_found", 405: "method_not_allowed", 401: "unauthorized", 413: "body_too_large"}


def _problems(exc: RequestValidationError) -> list[dict[str, str]]:
    out = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err.get("loc", ()) if p != "body") or "(body)"
        out.append({"field": loc, "problem": str(err.get("msg", ""))})
    return out


def _methods_of(request: Request) -> list[str]:
    """Every method the spec offers on this path (Starlette's 405 would name only the first route's)."""
    app = request.app
    compiled = getattr(app.state, "method_table", None)
    if compiled is None:
        compiled = [
            (compile_path(t)[0], [m.upper() for m in ops]) for t, ops in app.openapi()["paths"].items()
        ]
        app.state.method_table = compiled
    return sorted({m for regex, methods in compiled if regex.match(request.url.path) for m in methods})


def install_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, exc.body())

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        if any(e.get("type") == "json_invalid" for e in errors):
            ctx = errors[0].get("ctx") or {}
            why = ctx.get("error", "it is not JSON")
            return error_response(
                400, {"error": "invalid_json", "message": f"the body is not valid JSON: {why}"}
            )
        problems = _problems(exc)
        text = "; ".join(f"{p['field']}: {p['problem']}" for p in problems[:5])
        return error_response(
            422, {"error": "invalid_request", "message": f"invalid request: {text}", "problems": problems}
        )

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        name = NAMES.get(exc.status_code, "http_error")
        detail = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
        headers = dict(exc.headers or {})
        if exc.status_code == 404:
            detail = f"no such route: {request.method} {request.url.path}"
        if exc.status_code == 405:
            allowed = _methods_of(request)
            headers["Allow"] = ", ".join(allowed)
            detail = f"{request.method} is not allowed on {request.url.path} (allowed: {headers['Allow']})"
        return error_response(exc.status_code, {"error": name, "message": detail}, headers)

    @app.exception_handler(Exception)
    async def bug(request: Request, exc: Exception) -> JSONResponse:
        log.error("%s %s failed:\n%s", request.method, request.url.path, traceback.format_exc())
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        return error_response(500, {"error": "internal_error", "message": f"internal error: {first}"})
