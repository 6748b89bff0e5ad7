"""click, hover and dragDrop: real mouse events at the element's visible centre, with a fallback ladder."""

from __future__ import annotations

from typing import Literal

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page
from pydantic import BaseModel, ConfigDict, Field, model_validator

from kite_browser.agent.browser.exec.base import (
    NO_EFFECT,
    TOGGLED,
    ExecContext,
    NotInteractableError,
    Outcome,
)
from kite_browser.agent.browser.exec.cdp import mouse_click, mouse_moves
from kite_browser.agent.browser.exec.hit import (
    Probe,
    describe_point,
    probe,
    raise_covered,
    resolve_probe,
    through_covers,
    uncovered_soon,
)
from kite_browser.agent.browser.exec.recheck import checked_click, checked_point_click, look_again
from kite_browser.agent.browser.exec.spec import (
    REF,
    REF_WORDS,
    ActionModel,
    ActKind,
    FaceParam,
    PointTarget,
    ToolFace,
    define_action,
    target_kinds,
)
from kite_browser.agent.browser.exec.targets import (
    Target,
    check_point,
    on_target,
    resolve_element,
    resolve_index,
)


class DragPoint(BaseModel):
    """One end of a drag: an element index or viewport coordinates."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    index: int | None = Field(None, ge=0, description="Element index.")
    x: float | None = Field(None, description="Viewport x.")
    y: float | None = Field(None, description="Viewport y.")

    @model_validator(mode="before")
    @classmethod
    def _from_int(cls, data: object) -> object:
        if isinstance(data, int) and not isinstance(data, bool):
            return {"index": data}
        if isinstance(data, list | tuple) and len(data) == 2:
            return {"x": data[0], "y": data[1]}
        return data

    @model_validator(mode="after")
    def _one(self) -> DragPoint:
        kinds = target_kinds(self, allow_point=True)
        if len(kinds) != 1:
            raise ValueError("a drag end is either an 'index' or 'x'+'y'")
        return self


class Click(PointTarget):
    """Click an element (buttons, links, tabs, checkboxes, radio buttons) with a real mouse click."""

    action: Literal["click"] = "click"
    mouse_button: Literal["left", "right", "middle"] = Field("left", description="Mouse button.")
    double: bool = Field(False, description="Double-click instead of a single click.")


class Hover(PointTarget):
    """Move the mouse over an element (opens hover menus and tooltips)."""

    action: Literal["hover"] = "hover"


class DragDrop(ActionModel):
    """Drag from one element or point to another (HTML5 drag-and-drop, sliders, sortable lists)."""

    action: Literal["dragDrop"] = "dragDrop"
    from_: DragPoint = Field(alias="from", description="Where the drag starts: {index} or {x, y}.")
    to: DragPoint = Field(description="Where it ends: {index} or {x, y}.")


LOCATOR_TIMEOUT_MS = 1000
DRAG_STEPS = 12


async def click(ec: ExecContext, action: Click) -> Outcome:
    page = ec.page
    count = 2 if action.double else 1
    if action.x is not None and action.y is not None:
        await check_point(page, action.x, action.y)
        what = await describe_point(page, action.x, action.y)
        await ec.ready()
        if ec.recheck is None:
            await mouse_click(page, action.x, action.y, action.mouse_button, count)
        else:  # the element there is read again and judged on the way (exec/recheck.py)
            await checked_point_click(ec, page, action.x, action.y, action.mouse_button, count)
        return Outcome("mouse", f"clicked at ({action.x:g}, {action.y:g}){' on ' + what if what else ''}")
    target, pr = await _resolve_probe(ec, page, action.index, action.selector, seen=ec.recheck is not None)
    if pr.visible and pr.hit == "other" and await uncovered_soon(target):  # the cover was on the move
        target, pr = await _resolve_probe(
            ec, page, action.index, action.selector, seen=ec.recheck is not None
        )
    verb = "double-click" if action.double else "click"
    await ec.ready()
    if pr.visible and pr.hit == "self":
        checked: bool | None = None
        async with through_covers(target, pr):
            if ec.recheck is None:
                await mouse_click(page, pr.x, pr.y, action.mouse_button, count)
            else:  # move, look again, press, look again, release: the page may relabel it on the way
                checked = await checked_click(ec, page, target, pr, action.mouse_button, count)
        past = f" through a transparent <{pr.through}> over it" if pr.through else ""
        state = await _box_state(target, checked)
        shown, toggled = await _toggle_state(target)
        data: dict[str, object] = {"x": round(pr.x), "y": round(pr.y)}
        return Outcome(
            "mouse", f"{verb}ed {target.label}{past}{state}{shown}", data=data | _unneeded(state) | toggled
        )
    if pr.visible and pr.hit == "other":
        await _refuse_hidden(target, verb)  # a closed <details>'s content keeps a box, under what follows it
        raise_covered(ec, page, target, pr, verb)
    await look_again(ec, page, target, "before the click")
    outcome = await _click_ladder(target, action, pr, verb)
    state = await _box_state(target)
    shown, toggled = await _toggle_state(target)
    outcome.message += state + shown
    outcome.data.update(_unneeded(state) | toggled)
    return outcome


async def _resolve_probe(
    ec: ExecContext, page: Page, index: int | None, selector: str | None, seen: bool = False
) -> tuple[Target, Probe]:
    """The target and where the mouse lands on it (by index: in one round trip fewer; ``seen``: with the input
    guard's count of moves and presses, ``Probe.seen``)."""
    if index is not None:
        return await resolve_probe(ec, page, index, seen)
    target = await resolve_element(ec, page, index, selector)
    return target, await probe(target)


_STILL_CHECKED = ": still checked"
_CHECKED_NOW_JS = """el => el.tagName === 'INPUT' ? el.checked : el.getAttribute('aria-checked') === 'true'"""


async def _box_state(target: Target, now: bool | None = None) -> str:
    """': now checked' after a click on a checkbox, radio or switch (a second click unticks a checkbox: the
    result says so, so a model that clicks it again sees what it did). ``now``: the state already read (as the
    input guard was disarmed), else it is read here."""
    was = target.element.checked if target.element is not None else None
    if was is None:
        return ""
    try:
        now = bool(await on_target(target, _CHECKED_NOW_JS)) if now is None else now
    except PlaywrightError:  # the click took the element away (a navigation, a re-render)
        return ""
    if now == was:
        return _STILL_CHECKED if now else ": still unchecked"
    return ": now checked" if now else ": now unchecked (it was checked: this click unticked it)"


_EXPANDED_NOW_JS = """el => {
  const a = el.getAttribute('aria-expanded');
  if (a !== null) return a === 'true';
  const d = el.parentElement;
  return el.tagName === 'SUMMARY' && d && d.tagName === 'DETAILS' ? d.open : null;
}"""


async def _toggle_state(target: Target) -> tuple[str, dict[str, object]]:
    """': now expanded' / ': now collapsed' after a click on a section header, a disclosure or a menu button
    whose state the look showed (the snapshot's expanded/collapsed), with ``TOGGLED`` in the data: a click on
    an open section's header closes it, and a model that does not see that closes what it meant to open."""
    was = target.element.expanded if target.element is not None else None
    if was is None:
        return "", {}
    try:
        now = await on_target(target, _EXPANDED_NOW_JS)
    except PlaywrightError:  # the click took the element away (a navigation, a re-render)
        return "", {}
    if now is None or bool(now) == was:
        return "", {}
    if now:
        return ": now expanded", {TOGGLED: "expanded"}
    return ": now collapsed (it was expanded: this click closed it)", {TOGGLED: "collapsed"}


def _unneeded(state: str) -> dict[str, object]:
    """A click on a box that was checked and still is (a radio already chosen) changed nothing: said so in
    the result's data, so the loop guard sees a model that clicks it step after step and warns it."""
    return {NO_EFFECT: True} if state == _STILL_CHECKED else {}


# Why an element with no visible box is not shown at all (null: it is rendered, only boxless or clipped, or a
# hidden checkbox, radio or file input, which a person reaches through its label or styled stand-in).
_HIDDEN_JS = """el => {
  if (el.matches('input[type=checkbox], input[type=radio], input[type=file]')) return null;
  if (el.tagName === 'AREA') {  // never rendered itself (display: none): shown where its map's image is
    const map = el.closest('map');
    const img = map && map.name && [...document.images].find(i => i.useMap === '#' + map.name);
    if (!img) return 'no image uses its <map>';
    el = img;
  }
  if (typeof el.checkVisibility !== 'function' || el.checkVisibility({checkVisibilityCSS: true})) return null;
  for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
    const cs = getComputedStyle(n);
    const hidden = cs.display === 'none' || (n === el && cs.visibility !== 'visible')
      || (n.tagName === 'DETAILS' && n !== el && !n.open);
    if (!hidden) continue;
    if (n === el) return cs.display === 'none' ? 'it is hidden (display: none)' : 'it is hidden (visibility)';
    const name = n.tagName.toLowerCase() + (n.id ? '#' + n.id : '');
    return n.tagName === 'DETAILS' ? `it is inside a closed <${name}>` : `it is inside a hidden <${name}>`;
  }
  return 'it is not shown';
}"""


async def _refuse_hidden(target: Target, verb: str) -> None:
    """No JS click or synthetic hover on an element the page does not show: a person could not reach it, and
    the page may have hidden it on purpose (a link in a collapsed section is not meant to be used until the
    section is opened). The model is told to open what holds it first.
    Asked of every element the mouse cannot land on: one with ``visibility: hidden`` keeps its box."""
    try:
        why = await on_target(target, _HIDDEN_JS)
    except PlaywrightError:
        return
    if why:
        raise NotInteractableError(
            f"cannot {verb} {target.label}: {why}, so it is not shown now; open what holds it (a section, menu "
            "or tab) first, then use the element list of the next look",
            reason="hidden",
        )


async def _click_ladder(target: Target, action: Click, pr: Probe, verb: str) -> Outcome:
    await _refuse_hidden(target, verb)
    why = "it has no visible box" if not pr.visible else "the point hits its parent"
    count = 2 if action.double else 1
    try:
        await target.handle.click(button=action.mouse_button, click_count=count, timeout=LOCATOR_TIMEOUT_MS)
        return Outcome("locator", f"{verb}ed {target.label} (locator click: mouse could not land, {why})")
    except PlaywrightError:
        pass
    if action.mouse_button != "left":
        raise NotInteractableError(f"cannot {verb} {target.label}: {why}", reason=why)
    try:
        js = (
            "el => { el.click(); el.click(); el.dispatchEvent(new MouseEvent('dblclick', {bubbles: true})); }"
        )
        await target.handle.evaluate(js if action.double else "el => el.click()")
    except PlaywrightError as exc:
        raise NotInteractableError(f"cannot {verb} {target.label}: {why}; JS click failed: {exc}") from exc
    return Outcome("js", f"{verb}ed {target.label} with a JS click ({why}; no real mouse event)")


async def hover(ec: ExecContext, action: Hover) -> Outcome:
    page = ec.page
    if action.x is not None and action.y is not None:
        await check_point(page, action.x, action.y)
        await ec.ready()
        await page.mouse.move(action.x, action.y)
        what = await describe_point(page, action.x, action.y)
        return Outcome("mouse", f"mouse over ({action.x:g}, {action.y:g}){' on ' + what if what else ''}")
    target, pr = await _resolve_probe(ec, page, action.index, action.selector)
    if pr.visible and pr.hit == "other" and await uncovered_soon(target):
        target, pr = await _resolve_probe(ec, page, action.index, action.selector)
    await ec.ready()
    if pr.visible and pr.hit == "self":
        async with through_covers(target, pr):  # a move onto it, then one within it
            await mouse_moves(page, [(pr.x - 1, pr.y), (pr.x, pr.y)])
        return Outcome("mouse", f"hovering {target.label} at ({pr.x:.0f}, {pr.y:.0f})")
    await _refuse_hidden(target, "hover")
    if pr.visible and pr.hit == "other":
        raise_covered(ec, page, target, pr, "hover")
    try:
        await target.handle.hover(timeout=LOCATOR_TIMEOUT_MS)
        return Outcome("locator", f"hovering {target.label} (locator hover)")
    except PlaywrightError:
        pass
    await target.handle.evaluate(
        "el => ['pointerover','pointerenter','mouseover','mouseenter'].forEach(t => "
        "el.dispatchEvent(new MouseEvent(t, {bubbles: !t.endsWith('enter')})))"
    )
    return Outcome("js", f"dispatched hover events on {target.label} (no real mouse movement)")


async def _drag_point(ec: ExecContext, page: Page, end: DragPoint, scroll: bool) -> tuple[float, float, str]:
    if end.index is None:
        assert end.x is not None and end.y is not None
        await check_point(page, end.x, end.y)
        return end.x, end.y, f"({end.x:g}, {end.y:g})"
    target = await resolve_index(ec, page, end.index)
    pr = await probe(target, scroll=scroll)
    if not pr.visible:
        raise NotInteractableError(
            f"cannot drag {target.label}: it is not visible in the viewport", index=end.index
        )
    return pr.x, pr.y, target.label


async def drag_drop(ec: ExecContext, action: DragDrop) -> Outcome:
    page = ec.page
    # Bring the drop target into view first, then the source (which then stays put for the press).
    await _drag_point(ec, page, action.to, scroll=True)
    x0, y0, src = await _drag_point(ec, page, action.from_, scroll=True)
    x1, y1, dst = await _drag_point(ec, page, action.to, scroll=False)
    await page.mouse.move(x0, y0)
    await page.mouse.down()
    # A first small move starts HTML5 drags and pointer-driven sliders alike; then glide to the target.
    await page.mouse.move(x0 + (4 if x1 >= x0 else -4), y0 + (4 if y1 >= y0 else -4))
    await page.mouse.move(x1, y1, steps=DRAG_STEPS)
    await page.mouse.up()
    return Outcome("mouse", f"dragged {src} to {dst} (({x0:.0f}, {y0:.0f}) -> ({x1:.0f}, {y1:.0f}))")


CLICK_FACE = ToolFace(
    "click",
    "Click element [ref] like a user; returns what changed (and the new snapshot if the page changed).",
    "acts",
    (REF, FaceParam("button", "mouse_button", ""), FaceParam("double", "double", "Double-click.")),
    (ActKind("click", target="needed"),),
)
HOVER_FACE = ToolFace(
    "hover",
    "Move the mouse over element [ref] (opens hover menus and tooltips).",
    "loads",
    (REF,),
    (ActKind("hover", target="needed"),),
)
DRAG_FACE = ToolFace(
    "drag",
    "Drag element [from_ref] onto element [to_ref].",
    "acts",
    (
        FaceParam("from_ref", "from.index", REF_WORDS, required=True),
        FaceParam("to_ref", "to.index", REF_WORDS, required=True),
    ),
)
define_action(Click, click, settle="early", rank=10, says_no_effect=True, face=CLICK_FACE)
define_action(Hover, hover, settle="early", rank=70, face=HOVER_FACE)
define_action(DragDrop, drag_drop, rank=130, says_no_effect=True, face=DRAG_FACE)
