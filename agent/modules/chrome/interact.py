"""What the chrome tools do to an element: click, type (appends), fill (replaces). Each failure is a typed
ToolError.

These go straight to the page and to the DevTools input domain (as the agent's executor does) rather than
through Playwright's element actions: the element handles come from the page's own world (``pages.find``),
and a Playwright action on such a handle first adopts it into Playwright's utility world and waits for its
actionability checks, several round trips each (profiled: ``handle.fill`` 70 ms where this fill takes ~10).
"""

from __future__ import annotations

import contextlib
from typing import Any

from playwright.async_api import ElementHandle, Page
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from kite_browser.agent.browser.exec.cdp import cdp_session, mouse_click, type_keys
from kite_browser.agent.modules.base import ToolError
from kite_browser.agent.modules.chrome.manager import first_line

ACTION_TIMEOUT_MS = 5000
_DELETE = {"key": "Delete", "code": "Delete", "windowsVirtualKeyCode": 46}

_CARET_END = """(e) => {
  e.focus();
  try { if (typeof e.value === 'string' && e.setSelectionRange) { e.setSelectionRange(e.value.length, e.value.length); return; } } catch (_) {}
  if (e.isContentEditable) { const r = document.createRange(); r.selectNodeContents(e); r.collapse(false);
    const s = getSelection(); s.removeAllRanges(); s.addRange(r); }
}"""


async def click(
    page: Page, handle: ElementHandle, selector: str, timeout_ms: int, spot: dict[str, Any] | None
) -> str:
    """A real mouse click. Where the hit test (``spot``, from the probe) says the element's visible centre
    receives the click, the mouse events go there at once (pipelined, one round trip: as the agent's executor
    clicks); otherwise (out of view, covered, disabled) Playwright's click scrolls it into view and waits
    until it can be clicked. Returns how it clicked (mouse | locator)."""
    if spot and spot.get("visible") and spot.get("hit") == "self" and not spot.get("disabled"):
        try:
            await mouse_click(page, float(spot["cx"]), float(spot["cy"]))
        except PlaywrightError as exc:  # never retried: part of the click may have happened
            raise ToolError(
                "element_not_interactable",
                f"clicking {selector!r} failed: {first_line(exc)}",
                selector=selector,
            ) from exc
        return "mouse"
    try:
        await handle.click(timeout=timeout_ms)
        return "locator"
    except PlaywrightTimeout as exc:
        raise ToolError(
            "element_not_interactable",
            f"{selector!r} is there but could not be clicked within {timeout_ms} ms (hidden, covered or disabled)",
            selector=selector,
        ) from exc


async def type_text(page: Page, handle: ElementHandle, selector: str, value: str, delay: int) -> str:
    """Focus the element, put the caret at the end, type (appends); returns the element's value after."""
    try:
        await handle.evaluate(_CARET_END)  # focus and caret at the end: one round trip
        if delay:
            await page.keyboard.type(value, delay=delay)
        else:
            await type_keys(page, value)  # real key events, pipelined
    except PlaywrightError as exc:
        raise ToolError(
            "element_not_interactable", f"cannot type into {selector!r}: {first_line(exc)}", selector=selector
        ) from exc
    return await _value(handle)


# Focus the field and select its whole value, so that inserted text replaces it; input types that take no
# typing (date, time, color, range ...) get the value set directly, with the input and change events.
_FILL_PREP = """(e, value) => {
  const tag = e.tagName.toLowerCase(), type = (e.type || '').toLowerCase();
  const input = tag === 'input', area = tag === 'textarea';
  if (input && /^(checkbox|radio|file|submit|button|reset|image|hidden)$/.test(type) || !(input || area || e.isContentEditable))
    return {ok: false, why: `it is not a text field (<${tag}${type ? ' type=' + type : ''}>)`};
  if (e.disabled || e.readOnly) return {ok: false, why: 'it is disabled or read-only'};
  e.focus();
  if (input && /^(date|time|datetime-local|month|week|color|range)$/.test(type)) {
    const before = e.value;
    e.value = value;
    if (e.value !== value) { e.value = before; return {ok: false, why: `${JSON.stringify(value)} is not a valid ${type} value`}; }
    e.dispatchEvent(new Event('input', {bubbles: true})); e.dispatchEvent(new Event('change', {bubbles: true}));
    return {ok: true, set: true};
  }
  if (input || area) e.select();
  else { const r = document.createRange(); r.selectNodeContents(e); const s = getSelection(); s.removeAllRanges(); s.addRange(r); }
  return {ok: true, set: false};
}"""


async def fill(page: Page, handle: ElementHandle, selector: str, value: str) -> str:
    """Replace the element's value: select it all, then insert the new text (as Playwright's fill does) or,
    for an empty value, press Delete. A field that reformats or masks what it is given gets Playwright's fill."""
    try:
        prep = await handle.evaluate(_FILL_PREP, value)
        if not prep["ok"]:
            raise ToolError(
                "element_not_interactable", f"cannot fill {selector!r}: {prep['why']}", selector=selector
            )
        cdp = await cdp_session(page)
        if not prep["set"]:
            if cdp is None:
                await handle.fill(value, timeout=ACTION_TIMEOUT_MS)
            elif value:
                await cdp.send("Input.insertText", {"text": value})
            else:
                for kind in ("keyDown", "keyUp"):
                    await cdp.send("Input.dispatchKeyEvent", {"type": kind, **_DELETE})
        now = await _value(handle)
        if now != value and not prep["set"]:
            await handle.fill(value, timeout=ACTION_TIMEOUT_MS)
            now = await _value(handle)
    except PlaywrightError as exc:
        raise ToolError(
            "element_not_interactable", f"cannot fill {selector!r}: {first_line(exc)}", selector=selector
        ) from exc
    return now


async def _value(handle: ElementHandle) -> str:
    with contextlib.suppress(PlaywrightError):
        return str(await handle.evaluate("(e) => typeof e.value === 'string' ? e.value : e.innerText"))
    return ""
