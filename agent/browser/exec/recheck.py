"""The target read again right before the input lands, for the safety policy to judge again.

Between the snapshot the policy judged and the click, a page can relabel the button ("Continue" becomes
"Pay now" on a timer, on mouseover or on mousedown), point its form at another URL, or slide another element
under the pointer. When the loop gives ``ExecContext.recheck`` (the gate's second look), a click moves the
mouse onto its target first, reads the element again and has it judged; then presses and reads again; and
only then releases. A refusal raises ``TargetChangedError`` before anything is pressed, or moves the held
button off the page and releases it there, so no click event fires. Between those looks the input guard
(``guard.py``) holds the look inside the page: a target that reads otherwise at any event of the sequence
has that event and the rest of the input cancelled, and the action is refused the same way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from kite_browser.agent.browser.exec import guard
from kite_browser.agent.browser.exec.base import ExecContext
from kite_browser.agent.browser.exec.cdp import mouse_event
from kite_browser.agent.browser.exec.hit import Probe
from kite_browser.agent.browser.exec.targets import Target
from kite_browser.agent.browser.extractor_call import call_extractor
from kite_browser.agent.browser.observation import Element
from kite_browser.agent.errors import ActionError

Recheck = Callable[[Element], Awaitable[str | None]]
"""Judge the target as it reads now: None to go on, else why it is refused."""
OFF_PAGE = (-8.0, -8.0)
"""Where a refused press is released: on no element, so no click fires."""


class TargetChangedError(ActionError):
    """The target changed after the snapshot and its second look was refused (blocked or declined)."""

    type = "target_changed"


async def _index_of(ec: ExecContext, page: Page, target: Target) -> int | None:
    if target.element is not None:
        return target.element.index
    keys = getattr(ec.snapshotter, "index_keys", None)
    if keys is None:
        return None
    try:
        got = await call_extractor(target.frame, {"fn": "idOf", "el": target.handle})
    except PlaywrightError:
        return None
    index: int | None = keys(page).get((got["token"], got["id"])) if isinstance(got, dict) else None
    return index


async def look_again(ec: ExecContext, page: Page, target: Target, when: str) -> None:
    """Read ``target`` now and have ``ec.recheck`` judge it; raise ``TargetChangedError`` if refused."""
    if ec.recheck is None or ec.snapshotter is None:
        return
    index = await _index_of(ec, page, target)
    if index is not None:  # else not in any snapshot: the policy judged it as unknown already
        await look_again_at(ec, page, index, target.label, when)


async def look_again_at(ec: ExecContext, page: Page, index: int, label: str, when: str) -> None:
    """``look_again`` for the element behind a snapshot index (the focused one a key goes to)."""
    if ec.recheck is None or ec.snapshotter is None:
        return
    fresh = await ec.snapshotter.reread(page, index)
    if (why := await ec.recheck(fresh)) is not None:
        raise TargetChangedError(f"{label} changed {when}: {why}", index=index, now=fresh.name)


# In the target's frame: what the pointer at (x, y) lands on, if not the target (or its label) itself.
_LANDS_JS = """(el, [x, y]) => {
  let h = document.elementFromPoint(x, y);
  while (h && h.shadowRoot) { const i = h.shadowRoot.elementFromPoint(x, y); if (!i || i === h) break; h = i; }
  const up = (n) => n.parentNode instanceof ShadowRoot ? n.parentNode.host : n.parentElement;
  const inside = (n, anc) => { for (let c = n; c; c = up(c)) if (c === anc) return true; return false; };
  const labels = el.labels ? Array.from(el.labels) : [];
  if (h && (inside(h, el) || labels.some((l) => inside(h, l)))) return null;
  return h ? (h.innerText || h.getAttribute('aria-label') || h.tagName).trim().replace(/\\s+/g, ' ').slice(0, 40) : '(nothing)';
}"""


# _LANDS_JS, and when the pointer lands on the target, the input guard armed on it in the same call.
_LANDS_ARM_JS = f"""(el, xy) => {{
  const other = ({_LANDS_JS})(el, xy);
  if (other === null) {{ {guard.arm_call()} }}
  return other;
}}"""


async def _still_there(target: Target, pr: Probe, when: str, arm: bool = False) -> None:
    """The pointer still lands on the target: nothing slid under it and it did not move away. ``arm``: and
    the input guard is armed on it in the same call (its reading now is what the guard holds)."""
    try:
        other = await target.handle.evaluate(_LANDS_ARM_JS if arm else _LANDS_JS, list(pr.local))
    except PlaywrightError:
        other = "(the element is gone)"
    if other is not None:
        raise TargetChangedError(
            f"{target.label} moved or was covered {when} (the pointer would land on {other!r}); "
            "nothing was clicked: observe the page again",
            x=round(pr.x),
            y=round(pr.y),
        )


async def _both(ec: ExecContext, page: Page, target: Target, pr: Probe, when: str, arm: bool = False) -> None:
    """Both looks at once (read-only, so their round trips overlap); the pointer's first (which arms the input
    guard when ``arm``: the page answers it before the second look, so the guard holds what is judged or
    later)."""
    where, what = await asyncio.gather(
        _still_there(target, pr, when, arm), look_again(ec, page, target, when), return_exceptions=True
    )
    for outcome in (where, what):
        if isinstance(outcome, BaseException):
            raise outcome


async def guarded(
    ec: ExecContext, target: Target, input_: Awaitable[None], what: str, *, arms_itself: bool = False
) -> bool | None:
    """Run ``input_`` (a click, a key press) with the input guard armed on ``target``; a trip (the target
    read otherwise at one of the input's events, which were cancelled from there on) -> ``TargetChangedError``.
    ``arms_itself``: ``input_`` arms the guard itself, before its first event that the guard watches. Returns
    whether the target is checked after the input (read as the guard is disarmed; None when not known)."""
    if ec.recheck is None or (not arms_itself and not await guard.arm(target.handle)):
        await input_
        return None
    try:
        await input_
    finally:
        reading = asyncio.ensure_future(guard.disarm_reading(target.handle))
        await asyncio.sleep(0)  # the task's first step sends the disarm: the settle's calls follow it
        ec.input_over()
        tripped, checked = await reading
    if tripped is not None:
        index = target.element.index if target.element is not None else None
        change = (
            f"now reads {tripped.now!r}"
            if tripped.why == "changed"
            else f"the pointer landed on {tripped.now or 'another element'!r}"
        )
        raise TargetChangedError(
            f"{target.label} changed during the {what} (at {tripped.event}: {change}); the input was "
            "cancelled there and nothing was activated: observe the page again",
            index=index,
            now=tripped.now,
            event=tripped.event,
        )
    return checked


async def checked_click(
    ec: ExecContext, page: Page, target: Target, pr: Probe, button: str, count: int
) -> bool | None:
    """Move, look again, press, look again, release (then the rest of a double click), with the input guard
    armed from the first look on (a move fires no event the guard watches) to the end. Returns whether the
    target is checked now (None when not known)."""
    run = _checked_click(ec, page, target, pr, button, count)
    return await guarded(ec, target, run, "click", arms_itself=True)


async def _checked_click(
    ec: ExecContext, page: Page, target: Target, pr: Probe, button: str, count: int
) -> None:
    await mouse_event(page, "move", pr.x, pr.y)
    await _both(ec, page, target, pr, "when the mouse reached it", arm=True)
    await mouse_event(page, "press", pr.x, pr.y, button, 1)
    try:
        await _both(ec, page, target, pr, "when the mouse button went down")
    except BaseException:
        await mouse_event(page, "move", *OFF_PAGE)
        await mouse_event(page, "release", *OFF_PAGE, button, 1)
        raise
    await mouse_event(page, "release", pr.x, pr.y, button, 1)
    for n in range(2, count + 1):
        await mouse_event(page, "press", pr.x, pr.y, button, n)
        await mouse_event(page, "release", pr.x, pr.y, button, n)


# In the top frame: the extractor's ids of the element at (x, y) and its ancestors, innermost first.
_AT_JS = """([x, y]) => { const api = window.__kiteExtractor;
  let h = document.elementFromPoint(x, y);
  while (h && h.shadowRoot) { const i = h.shadowRoot.elementFromPoint(x, y); if (!i || i === h) break; h = i; }
  if (!api || !h) return null;
  const ids = [];
  for (let n = h; n && ids.length < 40; n = n.parentNode instanceof ShadowRoot ? n.parentNode.host : n.parentElement)
    ids.push(api.idOf(n));
  return {token: api.token, ids}; }"""


async def look_at_point(ec: ExecContext, page: Page, x: float, y: float, when: str) -> None:
    """For a click by coordinates: the indexed element under (x, y) now, read again and judged."""
    keys = getattr(ec.snapshotter, "index_keys", None)
    if ec.recheck is None or ec.snapshotter is None or keys is None:
        return
    try:
        got = await page.main_frame.evaluate(_AT_JS, [x, y])
    except PlaywrightError:
        return
    known = keys(page) if got else {}
    index = next((known[k] for i in (got or {}).get("ids", []) if (k := (got["token"], i)) in known), None)
    if index is None:  # nothing the snapshot listed is there: the policy judged the point as it was
        return
    fresh = await ec.snapshotter.reread(page, index)
    if (why := await ec.recheck(fresh)) is not None:
        raise TargetChangedError(
            f"the element at ({x:g}, {y:g}) changed {when}: {why}", index=index, now=fresh.name
        )


async def checked_point_click(
    ec: ExecContext, page: Page, x: float, y: float, button: str, count: int
) -> None:
    """``checked_click`` for a click by coordinates (the guard armed on the element under the point)."""
    try:
        handle = (await page.main_frame.evaluate_handle(_POINT_JS, [x, y])).as_element()
    except PlaywrightError:
        handle = None
    run = _checked_point_click(ec, page, x, y, button, count)
    if handle is None:
        await run
        return
    await guarded(ec, Target(page.main_frame, handle, None, f"the element at ({x:g}, {y:g})"), run, "click")


_POINT_JS = """([x, y]) => { let h = document.elementFromPoint(x, y);
  while (h && h.shadowRoot) { const i = h.shadowRoot.elementFromPoint(x, y); if (!i || i === h) break; h = i; }
  return h; }"""


async def _checked_point_click(
    ec: ExecContext, page: Page, x: float, y: float, button: str, count: int
) -> None:
    await mouse_event(page, "move", x, y)
    await look_at_point(ec, page, x, y, "when the mouse reached it")
    await mouse_event(page, "press", x, y, button, 1)
    try:
        await look_at_point(ec, page, x, y, "when the mouse button went down")
    except BaseException:
        await mouse_event(page, "move", *OFF_PAGE)
        await mouse_event(page, "release", *OFF_PAGE, button, 1)
        raise
    await mouse_event(page, "release", x, y, button, 1)
    for n in range(2, count + 1):
        await mouse_event(page, "press", x, y, button, n)
        await mouse_event(page, "release", x, y, button, n)
