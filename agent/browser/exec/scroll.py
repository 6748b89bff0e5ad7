"""scroll: the page or a scrollable element; the new position and the elements newly in view."""

from __future__ import annotations

from typing import Literal

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page
from pydantic import Field

from kite_browser.agent.base.errors import BrowserError
from kite_browser.agent.browser.exec.base import ExecContext, Outcome
from kite_browser.agent.browser.exec.spec import (
    ActionModel,
    ActKind,
    FaceParam,
    FirstCall,
    IndexField,
    ToolFace,
    define_action,
)
from kite_browser.agent.browser.exec.targets import resolve_index


class Scroll(ActionModel):
    """Scroll the page, or a scrollable element given by index."""

    action: Literal["scroll"] = "scroll"
    direction: Literal["up", "down", "left", "right"] = Field(description="Direction to scroll.")
    amount: int | None = Field(
        None, ge=1, le=100000, description="Pixels to scroll; default about one screen."
    )
    index: IndexField = None


_DELTA = {"down": (0, 1), "up": (0, -1), "right": (1, 0), "left": (-1, 0)}

# Scroll `el` (or, when it cannot scroll that way, its nearest scrollable ancestor; null = the page).
_SCROLL_JS = """(el, [dx, dy, amount]) => {
  const can = (e) => { const s = getComputedStyle(e); const ok = (v) => /(auto|scroll|overlay)/.test(v);
    return dy ? (ok(s.overflowY) && e.scrollHeight > e.clientHeight) : (ok(s.overflowX) && e.scrollWidth > e.clientWidth); };
  let box = el;
  while (box && box !== document.body && box !== document.documentElement && !can(box))
    box = box.parentNode instanceof ShadowRoot ? box.parentNode.host : box.parentElement;
  const page = !box || box === document.body || box === document.documentElement;
  const node = page ? document.scrollingElement : box;
  const step = amount || Math.round((dy ? (page ? innerHeight : node.clientHeight) : (page ? innerWidth : node.clientWidth)) * 0.8);
  const before = [node.scrollLeft, node.scrollTop];
  node.scrollBy({left: dx * step, top: dy * step, behavior: 'instant'});
  return {page, before, after: [node.scrollLeft, node.scrollTop], step,
          max: [node.scrollWidth - node.clientWidth, node.scrollHeight - node.clientHeight],
          tag: page ? 'page' : box.tagName.toLowerCase()};
}"""

# Elements in view before the scroll are remembered; afterwards, count interactive elements newly in view.
_INVIEW_JS = """(mode) => {
  const SEL = 'a[href],button,input,select,textarea,summary,[role=button],[role=link],[role=option],[role=menuitem],[onclick],[tabindex]';
  const inView = (e) => { const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth; };
  const els = Array.from(document.querySelectorAll(SEL)).filter(inView);
  if (mode === 'mark') { window.__kiteInView = new WeakSet(els); return els.length; }
  const seen = window.__kiteInView || new WeakSet();
  return els.filter((e) => !seen.has(e)).length;
}"""


async def mark_in_view(page: Page) -> None:
    try:
        await page.evaluate(_INVIEW_JS, "mark")
    except PlaywrightError:
        pass


_PAGE_SCROLL_JS = (
    f"([dx, dy, amount]) => {{ ({_INVIEW_JS})('mark');"
    f" return ({_SCROLL_JS})(document.documentElement, [dx, dy, amount]); }}"
)
"""Mark what is in view and scroll the page, in one call."""


AFTER_JS = f"() => ({{x: scrollX, y: scrollY, fresh: ({_INVIEW_JS})('count')}})"
"""The page's scroll position and how many interactive elements came into view (the settle's last call runs it:
``Settler.settle(after_js=...)``)."""


def first_call(action: Scroll) -> FirstCall | None:
    """A page scroll is made in the settle mark's own call, its settle's wait too (``ActionSpec.first_call``):
    the action is one round trip when the scroll sets off no request or navigation."""
    if action.index is not None:
        return None
    dx, dy = _DELTA[action.direction]
    return FirstCall(_PAGE_SCROLL_JS, [dx, dy, action.amount or 0], settles=True, after_js=AFTER_JS)


def read_after(res: object) -> tuple[dict[str, float], int] | None:
    """``AFTER_JS``'s answer as (position, newly in view); None when there is none."""
    if not isinstance(res, dict) or "x" not in res:
        return None
    return {"x": float(res["x"]), "y": float(res["y"])}, int(res["fresh"])


async def after_scroll(page: Page) -> tuple[dict[str, float], int] | None:
    """The page's scroll position and how many interactive elements came into view: one call (when the settle
    did not read them)."""
    try:
        return read_after(await page.evaluate(AFTER_JS))
    except PlaywrightError:
        return None


async def scroll(ec: ExecContext, action: Scroll) -> Outcome:
    page = ec.page
    dx, dy = _DELTA[action.direction]
    if action.index is not None:
        await mark_in_view(page)
        target = await resolve_index(ec, page, action.index)
        res = await target.handle.evaluate(_SCROLL_JS, [dx, dy, action.amount or 0])
        where = "the page" if res["page"] else target.label
    else:  # marked and scrolled in the settle mark's call (a step's round trips are most of its time)
        got = await ec.first_answer()
        if got is None:  # the top frame's mark did not answer: scroll in a call of its own
            res = await page.evaluate(_PAGE_SCROLL_JS, [dx, dy, action.amount or 0])
        elif "error" in got:
            raise BrowserError(f"the page's scroll failed: {got['error']}")
        else:
            res = got["value"]
        where = "the page"
    moved = [round(a - b) for a, b in zip(res["after"], res["before"], strict=True)]
    pos = f"x={res['after'][0]:.0f}, y={res['after'][1]:.0f} of max {res['max'][0]:.0f}, {res['max'][1]:.0f}"
    if moved == [0, 0]:
        msg = f"{where} did not move (already at the {'end' if dx + dy > 0 else 'start'}); position {pos}"
    else:
        msg = f"scrolled {where} {action.direction} by {abs(moved[0] or moved[1])} px; position {pos}"
    return Outcome(
        "js_scroll",
        msg,
        data={"moved": moved, "position": res["after"], "container": res["tag"]},
        scroll=True,
    )


SCROLL_FACE = ToolFace(
    "scroll",
    "Scroll the page (or element [ref]) up, down, left or right.",
    "loads",
    (
        FaceParam("direction", "direction", ""),
        FaceParam("amount", "amount", "Pixels; default about one screen."),
        FaceParam("ref", "index", "A scrollable element; omit for the page."),
    ),
    (
        ActKind(
            "scroll", target="optional", text="direction", says="up|down (default down)", text_default="down"
        ),
    ),
)
define_action(Scroll, scroll, rank=30, face=SCROLL_FACE, first_call=first_call)
