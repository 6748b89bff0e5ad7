"""Tiny request/response layer shared by the server-side handlers of the bundled sites."""

from __future__ import annotations

import html
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, quote

from kite_browser.evals.sites.variants import Variant

if TYPE_CHECKING:
    from kite_browser.evals.sites.state import StateStore


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    cookies: dict[str, str]
    body: bytes
    sid: str
    store: StateStore
    stopping: threading.Event
    variant: Variant = field(default_factory=Variant)
    """The page variant the server serves (evals/sites/variants.py)."""

    def arg(self, name: str, default: str = "") -> str:
        values = self.query.get(name)
        return values[0] if values else default

    @property
    def form(self) -> dict[str, list[str]]:
        ctype = self.headers.get("content-type", "")
        if "application/x-www-form-urlencoded" in ctype:
            return parse_qs(self.body.decode("utf-8", "replace"), keep_blank_values=True)
        return {}

    def field(self, name: str, default: str = "") -> str:
        values = self.form.get(name)
        return values[0].strip() if values else default

    def json(self) -> Any:
        if not self.body:
            return {}
        try:
            return json.loads(self.body.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            return None


@dataclass
class Response:
    status: int = 200
    body: bytes = b""
    content_type: str = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    cookies: list[str] = field(default_factory=list)


Handler = Callable[[Request], Response]


def html_response(body: str, status: int = 200) -> Response:
    return Response(status=status, body=body.encode("utf-8"))


def json_response(data: object, status: int = 200) -> Response:
    return Response(
        status=status, body=json.dumps(data, ensure_ascii=False).encode(), content_type="application/json"
    )


def redirect(location: str, status: int = 303) -> Response:
    return Response(status=status, headers={"Location": location})


def esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def set_cookie(name: str, value: str, max_age: int | None = 365 * 24 * 3600) -> str:
    cookie = f"{name}={quote(value)}; Path=/; SameSite=Lax; HttpOnly"
    if max_age is not None:
        cookie += f"; Max-Age={max_age}"
    return cookie
