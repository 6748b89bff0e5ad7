"""The fingerprint of an element: what finds it again on a later visit (a workflow's replay, agent/workflow/).

Taken by ``BrowserEnv.act`` from the element an action targets, right before it runs (``ActionResult.target``),
so every run record keeps it; the replay takes the same fingerprint of each candidate and compares them.
"""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import ElementHandle
from playwright.async_api import Error as PlaywrightError

from kite_browser.agent.browser.exec.spec import ActionModel
from kite_browser.agent.browser.observation import Element, Fingerprint

FINGERPRINT_JS = Path(__file__).with_name("fingerprint.js").read_text(encoding="utf-8")
STABLE_ATTRS = ("id", "name", "data-testid", "data-test", "data-qa", "href", "for")
"""The attributes that name an element on purpose (an id that looks generated is left out when taken)."""

NOT_ELEMENTS = frozenset({"switchTab"})
"""Actions whose ``index`` is not an element's (a tab's)."""

__all__ = [
    "FINGERPRINT_JS",
    "NOT_ELEMENTS",
    "STABLE_ATTRS",
    "Fingerprint",
    "drag_ends",
    "element_index",
    "fingerprint_from",
    "take_fingerprint",
]


def element_index(action: ActionModel | dict[str, object]) -> int | None:
    """The element index an action targets (an action model or its JSON form); None without one."""
    name = action.get("action") if isinstance(action, dict) else action.action
    index = action.get("index") if isinstance(action, dict) else action.target_index
    return index if isinstance(index, int) and name not in NOT_ELEMENTS else None


def drag_ends(action: ActionModel) -> tuple[int | None, int | None]:
    """A drag's start and end element indexes (None for an end given as a point, or another action)."""
    if action.action != "dragDrop":
        return None, None
    ends = (getattr(action, "from_", None), getattr(action, "to", None))
    return tuple(  # type: ignore[return-value]
        i if isinstance(i := getattr(end, "index", None), int) else None for end in ends
    )


async def take_fingerprint(handle: ElementHandle, element: Element) -> Fingerprint | None:
    """The fingerprint of the element behind ``handle`` (None when the page would not say: it went away)."""
    try:
        got = await handle.evaluate(FINGERPRINT_JS)
    except PlaywrightError:
        return None
    return fingerprint_from(got, element)


def fingerprint_from(got: object, element: Element) -> Fingerprint | None:
    """The fingerprint of ``element`` from ``FINGERPRINT_JS``'s answer (None when there is none)."""
    if not isinstance(got, dict):
        return None
    return Fingerprint(
        tag=element.tag,
        role=element.role,
        name=element.name,
        attrs={str(k): str(v) for k, v in (got.get("attrs") or {}).items()},
        label=str(got.get("label") or ""),
        heading=str(got.get("heading") or ""),
        neighbours=[str(n) for n in got.get("neighbours") or []],
        frame=element.frame,
        path=str(got.get("path") or ""),
    )
