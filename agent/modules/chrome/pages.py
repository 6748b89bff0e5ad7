"""What the chrome tools do to a tab: navigate, read, interact, evaluate. Each failure is a typed ToolError."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
from urllib.parse import urlsplit

from playwright.async_api import ElementHandle, Page, Request
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from kite_browser.agent.base.jsontypes import JsonValue
from kite_browser.agent.base.toolset import JsonObject
from kite_browser.agent.browser.exec.cdp import cdp_session
from kite_browser.agent.browser.exec.js import RUN_JS
from kite_browser.agent.config import BrowserConfig
from kite_browser.agent.modules.base import ToolError
from kite_browser.agent.modules.chrome.manager import first_line

MAX_RESULT_CHARS = 1_000_000
"""Largest evaluate result / content handed back (bigger answers result_too_large)."""
IDLE_MS = 500
ACTION_TIMEOUT_MS = 5000


def check_url(url: str, cfg: BrowserConfig) -> str:
    """http(s) and about: URLs only (file:/javascript: when the browser config allows them)."""
    raw = url.strip()
    scheme = urlsplit(raw).scheme.lower() if ":" in raw else ""
    allowed = {"http", "https", "about"}
    if cfg.allow_file_urls:
        allowed.add("file")
    if scheme not in allowed:
        why = "has no scheme" if not scheme else f"uses '{scheme}:'"
        raise ToolError("invalid_url", f"{url[:100]!r} {why}; only http(s) URLs can be opened", url=url[:200])
    return raw


def _bad_selector(exc: PlaywrightError) -> bool:
    text = str(exc)
    return "is not a valid selector" in text or "Unexpected token" in text or "SyntaxError" in text


async def query(page: Page, selector: str) -> ElementHandle:
    """The first element matching ``selector`` now (element_not_found / invalid_selector)."""
    try:
        handle = await page.query_selector(selector)
    except PlaywrightError as exc:
        if _bad_selector(exc):
            raise ToolError(
                "invalid_selector", f"{selector!r} is not a valid CSS selector", selector=selector
            ) from exc
        raise
    if handle is None:
        raise ToolError("element_not_found", f"no element matches {selector!r}", selector=selector)
    return handle


_FIND_JS = "(selector) => document.querySelector(selector)"


async def find(page: Page, selector: str, wait_ms: int = 0) -> ElementHandle:
    """The first element matching ``selector``, waiting up to ``wait_ms`` for it to be attached.

    Fast path: one round trip through the page's own ``querySelector`` (Playwright's selector engine costs
    several). Anything else goes to Playwright's engine, unchanged: a selector ``querySelector`` cannot parse
    (Playwright's ``text=``/XPath extensions, or a malformed one: invalid_selector), and an element that is not
    there (yet), or only inside a shadow root (it waits, or answers element_not_found)."""
    try:
        found = (await page.evaluate_handle(_FIND_JS, selector)).as_element()
    except PlaywrightError:
        found = None
    if found is not None:
        return found
    return await (wait_element(page, selector, wait_ms) if wait_ms > 0 else query(page, selector))


async def value_of(handle: ElementHandle) -> str:
    """The value an element holds (a field's value, else its text); empty when it cannot be read."""
    with contextlib.suppress(PlaywrightError):
        return str(await handle.evaluate("(e) => typeof e.value === 'string' ? e.value : e.innerText"))
    return ""


async def wait_for(page: Page, selector: str, state: str, timeout_ms: int) -> None:
    try:
        await page.wait_for_selector(selector, state=state, timeout=timeout_ms)  # type: ignore[arg-type]
    except PlaywrightTimeout as exc:
        raise ToolError(
            "wait_timeout",
            f"{selector!r} did not become {state} within {timeout_ms} ms",
            selector=selector,
            state=state,
            timeoutMs=timeout_ms,
        ) from exc
    except PlaywrightError as exc:
        if _bad_selector(exc):
            raise ToolError(
                "invalid_selector", f"{selector!r} is not a valid CSS selector", selector=selector
            ) from exc
        raise


async def wait_element(page: Page, selector: str, timeout_ms: int) -> ElementHandle:
    try:
        handle = await page.wait_for_selector(selector, state="attached", timeout=timeout_ms)
    except PlaywrightTimeout as exc:
        raise ToolError(
            "element_not_found",
            f"no element matches {selector!r} (waited {timeout_ms} ms)",
            selector=selector,
            timeoutMs=timeout_ms,
        ) from exc
    except PlaywrightError as exc:
        if _bad_selector(exc):
            raise ToolError(
                "invalid_selector", f"{selector!r} is not a valid CSS selector", selector=selector
            ) from exc
        raise
    if handle is None:
        raise ToolError("element_not_found", f"no element matches {selector!r}", selector=selector)
    return handle


# ---------------------------------------------------------------------------- navigation


async def _network_idle(page: Page, max_inflight: int, timeout_s: float, inflight: set[Request]) -> None:
    """Wait until at most ``max_inflight`` requests have been in flight for IDLE_MS (puppeteer's networkidle2)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    quiet_since = loop.time()
    while True:
        now = loop.time()
        if len(inflight) > max_inflight:
            quiet_since = now
        elif now - quiet_since >= IDLE_MS / 1000:
            return
        if now >= deadline:
            raise TimeoutError
        await asyncio.sleep(0.05)


async def navigate(page: Page, url: str, wait_until: str, timeout_ms: int) -> JsonObject:
    inflight: set[Request] = set()

    def started(req: Request) -> None:
        inflight.add(req)

    def ended(req: Request) -> None:
        inflight.discard(req)

    listen = wait_until == "networkidle2"
    if listen:
        page.on("request", started)
        page.on("requestfinished", ended)
        page.on("requestfailed", ended)
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    pw_wait = {"networkidle0": "networkidle", "networkidle2": "load"}.get(wait_until, wait_until)
    try:
        resp = await page.goto(url, wait_until=pw_wait, timeout=timeout_ms)  # type: ignore[arg-type]
        if listen:
            left = timeout_ms / 1000 - (loop.time() - t0)
            await _network_idle(page, 2, max(0.0, left), inflight)
    except (PlaywrightTimeout, TimeoutError) as exc:
        raise ToolError(
            "navigation_timeout",
            f"{url} did not reach '{wait_until}' within {timeout_ms} ms (the tab stays usable)",
            url=url,
            timeoutMs=timeout_ms,
        ) from exc
    except PlaywrightError as exc:
        raise ToolError("navigation_failed", f"could not open {url}: {first_line(exc)}", url=url) from exc
    finally:
        if listen:
            page.remove_listener("request", started)
            page.remove_listener("requestfinished", ended)
            page.remove_listener("requestfailed", ended)
    return {"url": page.url, "status": resp.status if resp is not None else None}


# ---------------------------------------------------------------------------- reading


def _bounded(text: str, what: str) -> str:
    if len(text) > MAX_RESULT_CHARS:
        raise ToolError(
            "result_too_large",
            f"the {what} is {len(text)} characters; the limit is {MAX_RESULT_CHARS} (narrow it with a selector)",
            size=len(text),
            limit=MAX_RESULT_CHARS,
        )
    return text


async def screenshot(page: Page, full_page: bool, selector: str | None) -> bytes:
    try:
        if selector:
            handle = await query(page, selector)
            return await handle.screenshot(type="png", timeout=10000)
        return await page.screenshot(type="png", full_page=full_page, timeout=10000)
    except ToolError:
        raise
    except PlaywrightError as exc:
        raise ToolError(
            "screenshot_failed",
            f"screenshot failed: {first_line(exc)}",
            **({"selector": selector} if selector else {}),
        ) from exc


def b64(png: bytes) -> str:
    return base64.b64encode(png).decode()


_READ_JS = """([selector, what]) => {
  const e = selector ? document.querySelector(selector) : (what === 'html' ? document.documentElement : document.body);
  if (!e) return selector ? {missing: true} : {value: ''};
  if (what === 'html') return {value: selector ? e.outerHTML : new XMLSerializer().serializeToString(document)};
  return {value: e.innerText ?? e.textContent ?? ''};
}"""


async def _read(page: Page, selector: str | None, what: str) -> str:
    """One round trip: the HTML or visible text of the page or of the first element matching ``selector``."""
    try:
        out = await page.evaluate(_READ_JS, [selector, what])
    except PlaywrightError as exc:
        if selector and _bad_selector(exc):
            raise ToolError(
                "invalid_selector", f"{selector!r} is not a valid CSS selector", selector=selector
            ) from exc
        raise
    if out.get("missing"):
        raise ToolError("element_not_found", f"no element matches {selector!r}", selector=selector)
    return _bounded(str(out["value"]), "HTML" if what == "html" else "text")


async def content(page: Page, selector: str | None) -> str:
    if selector:
        return await _read(page, selector, "html")
    return _bounded(await page.content(), "HTML")


async def text(page: Page, selector: str | None) -> str:
    return await _read(page, selector, "text")


_LIMITED = (
    "async (code) => { const v = await ("
    + RUN_JS
    + f""")(code); const s = JSON.stringify(v);
  return (s && s.length > {MAX_RESULT_CHARS}) ? {{__kite_too_large__: s.length}} : v; }}"""
)
"""Runs the code like executeJS does and measures the JSON in the page: a huge value never crosses the wire."""


async def _run(page: Page, script: str) -> JsonValue:
    cdp = await cdp_session(page)
    if cdp is None:
        return await page.evaluate(_LIMITED, script)
    res = await cdp.send(
        "Runtime.evaluate",
        {
            "expression": f"({_LIMITED})({json.dumps(script)})",
            "awaitPromise": True,
            "returnByValue": True,
            "allowUnsafeEvalBlockedByCSP": True,
        },
    )
    details = res.get("exceptionDetails")
    if details:
        exc = details.get("exception") or {}
        raise ToolError(
            "evaluate_error", str(exc.get("description") or details.get("text") or "error").splitlines()[0]
        )
    return res.get("result", {}).get("value")


async def evaluate(page: Page, script: str, timeout_ms: int) -> JsonValue:
    """Run ``script`` (an expression or a function body) and return its JSON-safe value; a runaway script is
    terminated after ``timeout_ms`` and the tab keeps working."""
    cdp = await cdp_session(page)
    task = asyncio.ensure_future(_run(page, script))
    try:
        value = await asyncio.wait_for(asyncio.shield(task), timeout_ms / 1000)
    except TimeoutError:
        if cdp is not None:
            with contextlib.suppress(PlaywrightError):
                await cdp.send("Runtime.terminateExecution")
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task, 2)
        raise ToolError(
            "evaluate_timeout",
            f"the script did not finish within {timeout_ms} ms and was stopped",
            timeoutMs=timeout_ms,
        ) from None
    except PlaywrightError as exc:
        raise ToolError("evaluate_error", first_line(exc).removeprefix("Error: ")) from exc
    if isinstance(value, dict) and "__kite_too_large__" in value:
        size = value["__kite_too_large__"]
        size = size if isinstance(size, int) else 0
        raise ToolError(
            "result_too_large",
            f"the result is {size} characters of JSON; the limit is {MAX_RESULT_CHARS}",
            size=size,
            limit=MAX_RESULT_CHARS,
        )
    return value
