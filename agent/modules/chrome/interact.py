"""``chrome_type`` with a per-key ``delay``: focus the element, caret at the end, type key by key (the module's
own typing; without a delay ``chrome_type`` and ``chrome_fill`` are the agent's ``type`` run through the env),
and the value an element holds after typing."""

from __future__ import annotations

import contextlib

from playwright.async_api import ElementHandle, Page
from playwright.async_api import Error as PlaywrightError

from kite_browser.agent.browser.exec.cdp import type_keys
from kite_browser.agent.modules.base import ToolError
from kite_browser.agent.modules.chrome.manager import first_line

ACTION_TIMEOUT_MS = 5000

_CARET_END = """(e) => {
  e.focus();
  try { if (typeof e.value === 'string' && e.setSelectionRange) { e.setSelectionRange(e.value.length, e.value.length); return; } } catch (_) {}
  if (e.isContentEditable) { const r = document.createRange(); r.selectNodeContents(e); r.collapse(false);
    const s = getSelection(); s.removeAllRanges(); s.addRange(r); }
}"""


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
    return await value_of(handle)


async def value_of(handle: ElementHandle) -> str:
    with contextlib.suppress(PlaywrightError):
        return str(await handle.evaluate("(e) => typeof e.value === 'string' ? e.value : e.innerText"))
    return ""
