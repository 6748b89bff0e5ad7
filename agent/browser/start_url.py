"""Checking a start URL before a run starts (``kite run --start-url``, ``POST /api/runs``): bad input fails
with a one-line UsageError before any browser starts."""

from __future__ import annotations

from urllib.parse import urlsplit

from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.config import BrowserConfig


def check_start_url(url: str | None, browser: BrowserConfig, flag: str = "--start-url") -> str | None:
    """The start URL to open (``example.com`` gets https://), or a UsageError saying what is wrong with it
    (``flag``: how the message names the input, e.g. ``start_url`` for the HTTP API)."""
    if url is None:
        return None
    raw = url.strip()
    if not raw:
        raise UsageError(f"{flag} is empty: give a URL such as https://example.com, or leave the flag out")
    if "://" not in raw and not raw.lower().startswith(
        ("about:", "javascript:", "data:", "file:", "chrome:")
    ):
        raw = "https://" + raw
    try:
        parts = urlsplit(raw)
        port = parts.port
    except ValueError as exc:
        raise UsageError(f"{flag} {url!r} is not a valid URL ({exc})") from None
    scheme = parts.scheme.lower()
    allowed = {"http", "https"} | ({"file"} if browser.allow_file_urls else set())
    if scheme == "about" and raw.lower() == "about:blank":
        return raw
    if scheme not in allowed:
        extra = " (file: needs browser.allow_file_urls)" if scheme == "file" else ""
        raise UsageError(f"{flag} {url!r}: '{scheme}:' URLs cannot be opened; use http(s){extra}")
    if scheme in ("http", "https"):
        host = parts.hostname or ""
        if not host or any(c.isspace() for c in raw):
            raise UsageError(f"{flag} {url!r} is not a URL: use a full address such as https://example.com")
        if port is not None and not 0 < port < 65536:
            raise UsageError(f"{flag} {url!r}: port {port} is out of range (1-65535)")
    return raw
