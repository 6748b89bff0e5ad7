"""One cached CDP session per page, and keyboard input over it with the round trips pipelined.

Playwright's ``keyboard.type`` awaits two round trips per character (keydown, keyup). ``type_keys`` sends
the same real key events (``Input.dispatchKeyEvent``: keydown with text -> keydown, keypress, beforeinput,
input; then keyup) for every character at once and awaits them together: the browser still handles them in
order. Characters without a key on a US keyboard are inserted with ``Input.insertText``, as Playwright does.
"""

from __future__ import annotations

import asyncio
import weakref

from playwright.async_api import CDPSession, Page
from playwright.async_api import Error as PlaywrightError

from kite_browser.agent.base.jsontypes import JsonObject

_SESSIONS: weakref.WeakKeyDictionary[Page, CDPSession] = weakref.WeakKeyDictionary()

_PUNCT = {
    " ": ("Space", 32), "-": ("Minus", 189), "=": ("Equal", 187), "[": ("BracketLeft", 219),
    "]": ("BracketRight", 221), "\\": ("Backslash", 220), ";": ("Semicolon", 186), "'": ("Quote", 222),
    ",": ("Comma", 188), ".": ("Period", 190), "/": ("Slash", 191), "`": ("Backquote", 192),
    "_": ("Minus", 189), "+": ("Equal", 187), "{": ("BracketLeft", 219), "}": ("BracketRight", 221),
    "|": ("Backslash", 220), ":": ("Semicolon", 186), '"': ("Quote", 222), "<": ("Comma", 188),
    ">": ("Period", 190), "?": ("Slash", 191), "~": ("Backquote", 192), "!": ("Digit1", 49),
    "@": ("Digit2", 50), "#": ("Digit3", 51), "$": ("Digit4", 52), "%": ("Digit5", 53), "^": ("Digit6", 54),
    "&": ("Digit7", 55), "*": ("Digit8", 56), "(": ("Digit9", 57), ")": ("Digit0", 48),
}  # fmt: skip
_SPECIAL = {
    "\n": ("Enter", "Enter", 13, "\r"),
    "\r": ("Enter", "Enter", 13, "\r"),
    "\t": ("Tab", "Tab", 9, ""),
}


async def cdp_session(page: Page) -> CDPSession | None:
    """The page's cached CDP session (None when the browser refuses one, e.g. not Chromium)."""
    cdp = _SESSIONS.get(page)
    if cdp is None:
        try:
            cdp = _SESSIONS[page] = await page.context.new_cdp_session(page)
        except PlaywrightError:
            return None
    return cdp


def forget(page: Page) -> None:
    _SESSIONS.pop(page, None)


def key_events(ch: str) -> list[tuple[str, JsonObject]]:
    """The CDP calls that type one character like a US keyboard would."""
    if ch in _SPECIAL:
        key, code, vk, text = _SPECIAL[ch]
        down: JsonObject = {"type": "keyDown", "key": key, "code": code, "windowsVirtualKeyCode": vk}
        if text:
            down |= {"text": text, "unmodifiedText": text}
        return [("Input.dispatchKeyEvent", down), ("Input.dispatchKeyEvent", {**down, "type": "keyUp"})]
    if ch.isascii() and ch.isalnum():
        code, vk = (f"Key{ch.upper()}", ord(ch.upper())) if ch.isalpha() else (f"Digit{ch}", ord(ch))
    elif ch in _PUNCT:
        code, vk = _PUNCT[ch]
    else:
        return [("Input.insertText", {"text": ch})]
    down = {"type": "keyDown", "key": ch, "code": code, "windowsVirtualKeyCode": vk, "text": ch}
    up: JsonObject = {"type": "keyUp", "key": ch, "code": code, "windowsVirtualKeyCode": vk}
    return [("Input.dispatchKeyEvent", {**down, "unmodifiedText": ch}), ("Input.dispatchKeyEvent", up)]


async def type_keys(page: Page, text: str, delay_ms: int = 0) -> None:
    """Type ``text`` into the focused element with real key events (Playwright's keyboard without CDP, or
    with ``delay_ms`` between the keys)."""
    cdp = await cdp_session(page) if not delay_ms else None
    if cdp is None:
        await page.keyboard.type(text, delay=delay_ms)
        return
    calls = [call for ch in text for call in key_events(ch)]
    try:
        await asyncio.gather(*(cdp.send(method, params) for method, params in calls))
    except PlaywrightError:
        forget(page)  # a stale session: a new one next time
        raise


_BUTTONS = {"left": 1, "right": 2, "middle": 4}


async def mouse_click(page: Page, x: float, y: float, button: str = "left", count: int = 1) -> None:
    """Move, press and release (twice for a double click) as real mouse events, pipelined in one go."""
    cdp = await cdp_session(page)
    if cdp is None:
        await page.mouse.click(x, y, button=button, click_count=count)  # type: ignore[arg-type]
        return
    base: JsonObject = {"x": x, "y": y}
    calls: list[JsonObject] = [{"type": "mouseMoved", **base, "button": "none", "buttons": 0}]
    for n in range(1, count + 1):
        press: JsonObject = {**base, "button": button, "clickCount": n}
        calls.append({"type": "mousePressed", **press, "buttons": _BUTTONS[button]})
        calls.append({"type": "mouseReleased", **press, "buttons": 0})
    try:
        await asyncio.gather(*(cdp.send("Input.dispatchMouseEvent", c) for c in calls))
    except PlaywrightError:
        forget(page)
        raise


async def mouse_moves(page: Page, points: list[tuple[float, float]]) -> None:
    """Real mouse moves (no button held) through ``points``, pipelined in one go."""
    cdp = await cdp_session(page)
    if cdp is None:
        for x, y in points:
            await page.mouse.move(x, y)
        return
    calls = [{"type": "mouseMoved", "x": x, "y": y, "button": "none", "buttons": 0} for x, y in points]
    try:
        await asyncio.gather(*(cdp.send("Input.dispatchMouseEvent", c) for c in calls))
    except PlaywrightError:
        forget(page)
        raise


async def mouse_event(
    page: Page, kind: str, x: float, y: float, button: str = "left", count: int = 1
) -> None:
    """One real mouse event: ``move`` (no button held), ``press`` or ``release`` of ``button`` at (x, y)."""
    cdp = await cdp_session(page)
    if cdp is None:
        if kind == "move":
            await page.mouse.move(x, y)
        else:
            await (page.mouse.down if kind == "press" else page.mouse.up)(button=button, click_count=count)  # type: ignore[arg-type]
        return
    call: JsonObject = {"x": x, "y": y}
    if kind == "move":
        call |= {"type": "mouseMoved", "button": "none", "buttons": 0}
    else:
        held = _BUTTONS[button] if kind == "press" else 0
        kind = "mousePressed" if kind == "press" else "mouseReleased"
        call |= {"type": kind, "button": button, "buttons": held, "clickCount": count}
    try:
        await cdp.send("Input.dispatchMouseEvent", call)
    except PlaywrightError:
        forget(page)
        raise
