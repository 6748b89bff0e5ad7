"""The input guard: the look at a target holds for the whole input sequence (``guard.js``).

The second look (``recheck.py``) reads the target between the input's steps, from Python; a page can still
relabel it between two of those looks and the event that acts (on ``keydown`` for an Enter or Space, on
``pointerup``, a few milliseconds after ``pointerdown``). The guard closes that gap inside the page: armed on
the target right before the input, it reads the target again at every event of the sequence in a
capture-phase listener, and cancels that event and the rest of the input when the target now reads otherwise.
``disarm`` says whether it tripped; the caller turns that into a ``target_changed`` refusal.

The guard lives in Kite's world (agent/browser/world.py), not on the page's ``window``: a page cannot find it
among its window's properties to disarm it, and the ``addEventListener`` it arms with, the getters it reads
with and the prototypes it reads through are the world's own, which no page script can replace. Its
capture-phase listeners on the window still see (and can cancel) every event of the page's input.
"""

from __future__ import annotations

import contextlib
import secrets
from pathlib import Path

from playwright.async_api import Error as PlaywrightError
from pydantic import BaseModel

from kite_browser.agent.browser.exec.targets import Target, on_target

GUARD_JS = Path(__file__).with_name("guard.js").read_text(encoding="utf-8")
_KEY = "__kite_guard_" + secrets.token_hex(6)
"""The property of Kite's world's window the guard lives under (random per process)."""


class Tripped(BaseModel):
    """What the guard saw: the event at which the target read otherwise, why, and what it reads now."""

    event: str
    why: str
    """changed (its label, role or destination) | moved (the pointer landed on another element)"""
    now: str = ""


def arm_call(handle_js: str = "el") -> str:
    """A JS statement arming the guard on the element ``handle_js`` names, for a caller that arms it inside a
    call of its own (one round trip fewer); never throws."""
    return f"try {{ ({GUARD_JS})({handle_js}, ['arm', {_KEY!r}]); }} catch (e) {{}}"


GUARD_FN = f"({GUARD_JS})"
"""The guard as a JS expression (a function of ``(el, [op, key, arg])``), to bind once in a caller's call."""
KEY_JS = repr(_KEY)
"""The key to pass it, as a JS string literal."""


def op_call(op: str, arg_js: str = "null", handle_js: str = "el") -> str:
    """A JS expression running the guard's ``op`` (``seen``, ``after``) on the element ``handle_js`` names with
    ``arg_js``, for a caller's own call (``after`` is a promise); may throw."""
    return f"({GUARD_JS})({handle_js}, [{op!r}, {_KEY!r}, {arg_js}])"


async def go(target: Target) -> None:
    """Answer every ``after`` waiting in the element's frame now (the input it waits for was handled)."""
    with contextlib.suppress(PlaywrightError):
        await on_target(target, GUARD_JS, ["go", _KEY, None])


async def arm(target: Target) -> bool:
    """Arm the guard on the target in its frame; False when it could not be (the element or frame is gone)."""
    try:
        return bool(await on_target(target, GUARD_JS, ["arm", _KEY]))
    except PlaywrightError:
        return False


_DISARM_JS = f"""(el, key) => {{
  const out = ({GUARD_JS})(el, ['disarm', key]);
  out.checked = el.tagName === 'INPUT' ? el.checked : el.getAttribute('aria-checked') === 'true';
  return out;
}}"""


async def disarm(target: Target) -> Tripped | None:
    """End the input: what tripped the guard, or None (also when the frame went away: a navigation)."""
    return (await disarm_reading(target))[0]


async def disarm_reading(target: Target) -> tuple[Tripped | None, bool | None]:
    """``disarm``, and in the same call whether the element is checked now (an input's ``checked``, else its
    ``aria-checked``; None when the frame went away)."""
    try:
        got: object = await on_target(target, _DISARM_JS, _KEY)
    except PlaywrightError:
        return None, None
    if not isinstance(got, dict):
        return None, None
    tripped = got.get("tripped")
    return (Tripped.model_validate(tripped) if tripped else None), bool(got.get("checked"))
