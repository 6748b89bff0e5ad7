"""The target read again right before the input lands, for the safety policy to judge again.

Between the snapshot the policy judged and the click, a page can relabel the button ("Continue" becomes
"Pay now" on a timer, on mouseover or on mousedown), point its form at another URL, or slide another element
under the pointer. When the loop gives ``ExecContext.recheck`` (the gate's second look), a click moves the
mouse onto its target first, reads the element again and has it judged; then presses and reads again; and
only then releases. A refusal raises ``TargetChangedError`` before anything is pressed, or moves the held
button off the page and releases it there, so no click event fires. Between those looks the input guard
(``guard.py``) holds the look inside the page: a target that reads otherwise at any event of the sequence
has that event and the rest of the input cancelled, and the action is refused the same way.

Each look goes out with the input it follows (the move, the press) and waits in the page until that input was
dispatched and its handlers ran (``guard.js``'s ``after``), then reads where the pointer lands, arms the guard
and reads the target for the policy in one call: the page is read at the same moment as by a look sent after
the input's answer, one round trip sooner; a look after a press is let go as soon as the press's answer came
(``guard.go``: after discrete input Chromium draws the next frame before the page's next task, which would hold
the look up to a frame). The next input is sent only once the look was judged.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page

from kite_browser.agent.base.errors import ActionError
from kite_browser.agent.browser.exec import guard
from kite_browser.agent.browser.exec.base import ExecContext
from kite_browser.agent.browser.exec.cdp import mouse_event
from kite_browser.agent.browser.exec.hit import Probe
from kite_browser.agent.browser.exec.targets import Target, on_target
from kite_browser.agent.browser.extractor_call import call_extractor, id_of
from kite_browser.agent.browser.observation import Element
from kite_browser.agent.browser.world import world_of

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
        ref = target.ref or await id_of(target.frame, target.handle)
    except PlaywrightError:
        return None
    target.ref = ref
    index: int | None = keys(page).get(ref) if ref is not None else None
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


async def guarded(
    ec: ExecContext,
    target: Target,
    input_: Awaitable[None],
    what: str,
    *,
    arms_itself: bool = False,
) -> bool | None:
    """Run ``input_`` (a click, a key press) with the input guard armed on ``target``; a trip (the target
    read otherwise at one of the input's events, which were cancelled from there on) -> ``TargetChangedError``.
    ``arms_itself``: ``input_`` arms the guard itself, before its first event that the guard watches. Returns
    whether the target is checked after the input (read as the guard is disarmed; None when not known)."""
    if ec.recheck is None or (not arms_itself and not await guard.arm(target)):
        await input_
        return None
    try:
        await input_
    finally:
        reading = asyncio.ensure_future(guard.disarm_reading(target))
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
    # The release is awaited before the disarm and the settle go out, so the settle begins after a navigation
    # the click starts (a form's submit) is under way (docs/decisions/release-before-settle.md).
    run = _checked_click(ec, page, target, pr, button, count)
    return await guarded(ec, target, run, "click", arms_itself=True)


async def _answered(
    sent: asyncio.Task[object], waiting: asyncio.Task[object], target: Target, grace_s: float
) -> None:
    """``sent`` (an input) answered, and ``waiting`` (a call waiting in the page for that input's event) let
    go: at once when the page told it of the event, else ``grace_s`` after the input's answer (``guard.go``)."""
    try:
        await sent
    except BaseException:
        await guard.go(target)
        await asyncio.wait({waiting})
        raise
    await asyncio.wait({waiting}, timeout=grace_s)
    if not waiting.done():  # the page did not tell the look of the input (a listener of its own stopped the
        await guard.go(target)  # event before the guard's): the input's answer came, so read now


# Sent along with a move or a press: waits in the page until that input was dispatched (and the task after it,
# so its handlers all ran), then the pointer's look (_LANDS_JS, arming the guard when asked and it lands on the
# target) and the target's reading for the policy (reread_call's request), in the same call; and the guard's
# count of moves and presses then (what the next look waits past).
_AFTER_LOOK_JS = f"""async (el, [x, y, kind, base, arm, req]) => {{
  const g = {guard.GUARD_FN}, key = {guard.KEY_JS};
  try {{ await g(el, ["after", key, [kind, base, x, y]]); }} catch (e) {{}}
  const other = ({_LANDS_JS})(el, [x, y]);
  if (other === null && arm) try {{ g(el, ["arm", key]); }} catch (e) {{}}
  let rec = null;
  if (req) try {{ rec = ({{stub}})(req); }} catch (e) {{}}
  let seen = null;
  try {{ seen = g(el, ["seen", key]); }} catch (e) {{}}
  return {{other, rec, seen}};
}}"""
GO_AFTER_S = 0.25
"""How long after a move's answer a look still waiting in the page is let wait for its event (it follows the
input's task at once) before ``guard.go`` answers it (the page stopped the event before the guard saw it;
without a count before the input, at once). After a press, at once: a press is discrete input, after which
Chromium draws the next frame before it runs any other task of the page's, so the task after the press comes up
to a frame (16.7 ms) after its answer, which already says its handlers ran."""
_NONE_SEEN = 2**52
"""The count a look waits past when the one before the input is not known: only ``guard.go`` answers it."""


async def _input_and_look(
    ec: ExecContext,
    page: Page,
    target: Target,
    pr: Probe,
    input_: Awaitable[None],
    kind: str,
    when: str,
    arm: bool = False,
) -> None:
    """Send ``input_`` (a move or a press) and both looks at once: the look waits in the page until the input
    was dispatched, or until the input's answer came back (``guard.go``), and reads the target then, as a look
    sent after that answer would (one round trip fewer per look). Raises ``TargetChangedError``
    when the pointer lands elsewhere or the policy refuses the target as it reads then;
    ``pr.seen`` becomes the count the next look waits past."""
    index = target.element.index if target.element is not None else None
    call = _reread_call(ec, page, index)
    req = call[2] if call is not None and call[0] is target.frame else None
    base = (pr.seen or {}).get(kind, _NONE_SEEN)
    js = _AFTER_LOOK_JS.replace("{stub}", call[1] if req is not None and call is not None else "null")
    sent = asyncio.ensure_future(input_)
    look = asyncio.ensure_future(on_target(target, js, [*pr.local, kind, base, arm, req]))
    await _answered(sent, look, target, GO_AFTER_S if base != _NONE_SEEN and kind == "move" else 0)
    try:
        got = await look
    except PlaywrightError:
        got = {"other": "(the element is gone)"}
    pr.seen = got.get("seen") if isinstance(got, dict) and isinstance(got.get("seen"), dict) else None
    other = got.get("other") if isinstance(got, dict) else "(the element is gone)"
    if other is not None:
        raise TargetChangedError(
            f"{target.label} moved or was covered {when} (the pointer would land on {other!r}); "
            "nothing was clicked: observe the page again",
            x=round(pr.x),
            y=round(pr.y),
        )
    if ec.recheck is None or ec.snapshotter is None:
        return
    fresh = None
    if index is not None and req is not None:
        fresh = await ec.snapshotter.reread_from(page, index, got.get("rec"))  # type: ignore[attr-defined]
    if fresh is None:  # not read in the same call (no index, another frame, no extractor there): read now
        await look_again(ec, page, target, when)
        return
    if (why := await ec.recheck(fresh)) is not None:
        raise TargetChangedError(f"{target.label} changed {when}: {why}", index=index, now=fresh.name)


def _reread_call(
    ec: ExecContext, page: Page, index: int | None
) -> tuple[Frame, str, dict[str, object]] | None:
    make = getattr(ec.snapshotter, "reread_call", None)
    if make is None or index is None:
        return None
    call: tuple[Frame, str, dict[str, object]] | None = make(page, index)
    return call


async def _checked_click(
    ec: ExecContext, page: Page, target: Target, pr: Probe, button: str, count: int
) -> None:
    move = mouse_event(page, "move", pr.x, pr.y)
    await _input_and_look(ec, page, target, pr, move, "move", "when the mouse reached it", arm=True)
    press = mouse_event(page, "press", pr.x, pr.y, button, 1)
    try:
        await _input_and_look(ec, page, target, pr, press, "down", "when the mouse button went down")
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
        await call_extractor(page.main_frame, {"fn": "token"})
        got = await world_of(page).call(page.main_frame, _AT_JS, [x, y])
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
    world, frame = world_of(page), page.main_frame
    handle = ref = None
    try:
        await call_extractor(frame, {"fn": "token"})
        got = await world.call(frame, _POINT_JS, [x, y])
        if isinstance(got, dict):
            ref = (str(got["t"]), int(got["i"]))
            handle = await world.handle(frame, *ref)
    except PlaywrightError:
        handle = None
    run = _checked_point_click(ec, page, x, y, button, count)
    if handle is None:
        await run
        return
    await guarded(ec, Target(frame, handle, None, f"the element at ({x:g}, {y:g})", ref), run, "click")


# In Kite's world of the top frame: the extractor's ids of the element at (x, y).
_POINT_JS = """([x, y]) => { const api = window.__kiteExtractor; let h = document.elementFromPoint(x, y);
  while (h && h.shadowRoot) { const i = h.shadowRoot.elementFromPoint(x, y); if (!i || i === h) break; h = i; }
  return api && h ? {t: api.token, i: api.idOf(h)} : null; }"""


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
