"""navigate, goBack, goForward, refresh and wait."""

from __future__ import annotations

import asyncio
from typing import Literal
from urllib.parse import unquote, urljoin, urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Response
from pydantic import Field

from kite_browser.agent.base.errors import ActionError, NavigationFailedError
from kite_browser.agent.browser.exec.base import ExecContext, Outcome, URLRefusedError
from kite_browser.agent.browser.exec.spec import ActionModel, FaceParam, ToolFace, define_action


class Navigate(ActionModel):
    """Open a URL in the current tab."""

    action: Literal["navigate"] = "navigate"
    url: str = Field(
        min_length=1, description="Absolute URL (http/https), or a path relative to the current page."
    )


class Wait(ActionModel):
    """Wait a fixed time (use only when the page is visibly still loading)."""

    action: Literal["wait"] = "wait"
    ms: int = Field(ge=0, le=30000, description="Milliseconds to wait (max 30000).")


class GoBack(ActionModel):
    """Go back in the tab's history."""

    action: Literal["goBack"] = "goBack"


class GoForward(ActionModel):
    """Go forward in the tab's history."""

    action: Literal["goForward"] = "goForward"


class Refresh(ActionModel):
    """Reload the current page."""

    action: Literal["refresh"] = "refresh"


SAFE_SCHEMES = frozenset({"http", "https", "about"})


def check_url(ec: ExecContext, url: str) -> str:
    """The absolute URL to open, or a url_refused error (javascript:/file: unless allowed, unknown schemes)."""
    raw = url.strip()
    scheme = urlsplit(raw).scheme.lower()
    if not scheme:
        base = ec.page.url
        if raw.startswith("//") or base.startswith(("http://", "https://")):
            raw = urljoin(base, raw)
        else:
            raw = "https://" + raw  # "example.com/path"
        scheme = urlsplit(raw).scheme.lower()
    cfg = ec.config.browser
    if scheme == "javascript" and not cfg.allow_javascript_urls:
        raise URLRefusedError("javascript: URLs are refused (browser.allow_javascript_urls is off)", url=url)
    if scheme == "file" and not cfg.allow_file_urls:
        raise URLRefusedError("file: URLs are refused (browser.allow_file_urls is off)", url=url)
    if scheme not in SAFE_SCHEMES | {"javascript", "file"}:
        raise URLRefusedError(f"'{scheme}:' URLs are refused; use http(s)", url=url)
    return raw


def _status(resp: Response | None) -> str:
    if resp is None:
        return ""
    return f" (HTTP {resp.status})" if resp.status >= 400 else ""


async def navigate(ec: ExecContext, action: Navigate) -> Outcome:
    url = check_url(ec, action.url)
    page = ec.page
    if url.lower().startswith("javascript:"):
        await page.evaluate(unquote(url[len("javascript:") :]))
        return Outcome("javascript_url", "ran the javascript: URL in the current page")
    try:
        resp = await page.goto(
            url, wait_until="domcontentloaded", timeout=ec.config.browser.navigation_timeout_ms
        )
    except PlaywrightError as exc:
        first = str(exc).splitlines()[0]
        if "Download is starting" in first:
            return Outcome("goto", f"{url} started a download instead of opening a page")
        raise NavigationFailedError(f"could not open {url}: {first}", url=url) from exc
    return Outcome(
        "goto", f"opened {page.url}{_status(resp)}", data={"status": resp.status if resp else None}
    )


async def _history(ec: ExecContext, forward: bool) -> Outcome:
    page = ec.page
    before = page.url
    timeout = ec.config.browser.navigation_timeout_ms
    try:
        if forward:
            resp = await page.go_forward(wait_until="domcontentloaded", timeout=timeout)
        else:
            resp = await page.go_back(wait_until="domcontentloaded", timeout=timeout)
    except PlaywrightError as exc:
        raise NavigationFailedError(f"history navigation failed: {str(exc).splitlines()[0]}") from exc
    word = "forward" if forward else "back"
    if resp is None and page.url == before:
        raise ActionError(
            f"cannot go {word}: there is no {'next' if forward else 'previous'} page in this tab's history"
        )
    return Outcome("history", f"went {word} to {page.url}{_status(resp)}")


async def go_back(ec: ExecContext, action: GoBack) -> Outcome:
    return await _history(ec, forward=False)


async def go_forward(ec: ExecContext, action: GoForward) -> Outcome:
    return await _history(ec, forward=True)


async def refresh(ec: ExecContext, action: Refresh) -> Outcome:
    try:
        resp = await ec.page.reload(
            wait_until="domcontentloaded", timeout=ec.config.browser.navigation_timeout_ms
        )
    except PlaywrightError as exc:
        raise NavigationFailedError(f"reload failed: {str(exc).splitlines()[0]}") from exc
    return Outcome("reload", f"reloaded {ec.page.url}{_status(resp)}")


async def wait(ec: ExecContext, action: Wait) -> Outcome:
    await asyncio.sleep(action.ms / 1000)
    return Outcome("sleep", f"waited {action.ms} ms")


NAVIGATE_FACE = ToolFace(
    "navigate",
    "Open a URL in the current tab; returns the new page's compact snapshot.",
    "loads",
    (FaceParam("url", "url", "Absolute http(s) URL, or a path relative to the current page."),),
)
GO_BACK_FACE = ToolFace("go_back", "Go back one page in the tab's history.", "loads")
define_action(Navigate, navigate, rank=40, face=NAVIGATE_FACE)
define_action(Wait, wait, settle="none", rank=60)
define_action(GoBack, go_back, rank=100, face=GO_BACK_FACE)
define_action(GoForward, go_forward, rank=110)
define_action(Refresh, refresh, rank=120)
