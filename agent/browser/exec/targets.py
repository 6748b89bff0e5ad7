"""Target resolution: element index (via the snapshotter), CSS selector, XPath, or viewport point."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from playwright.async_api import ElementHandle, Frame, Page
from playwright.async_api import Error as PlaywrightError

from kite_browser.agent.base.errors import ActionError, ElementNotFoundError
from kite_browser.agent.browser.exec.base import (
    AmbiguousTargetError,
    ExecContext,
    InvalidSelectorError,
    OutsideViewportError,
    ResolvedLike,
)
from kite_browser.agent.browser.extractor_call import id_of
from kite_browser.agent.browser.fingerprint import FINGERPRINT_JS, fingerprint_from
from kite_browser.agent.browser.observation import Element
from kite_browser.agent.browser.render import role_word
from kite_browser.agent.browser.world import WorldError, world_of


@dataclass
class Target:
    frame: Frame
    handle: ElementHandle
    """For Playwright's own actions (in the page's world)."""
    element: Element | None
    label: str
    """How the target is named in messages: '[12] button "Save"' or 'selector "#save"'."""
    ref: tuple[str, int] | None = None
    """(document token, local id): the element as the extractor in Kite's world knows it (``on_target``)."""


_ON_JS = """(req) => {
  const a = window.__kiteExtractor;
  const el = a && a.token === req.t ? a.get(req.i) : null;
  if (!el) throw new Error("the element is gone");
  return (%s)(el, req.a);
}"""


async def on_target(target: Target, js: str, arg: object = None) -> Any:  # the page's JSON answer
    """``js`` (a function expression of ``(el, arg)``; ``arg`` JSON) run on the target in Kite's world, out of
    the page's reach (agent/browser/world.py). Raises PlaywrightError when the element or its frame is gone
    or ``js`` threw."""
    if target.ref is None:
        target.ref = await id_of(target.frame, target.handle)
        if target.ref is None:
            raise WorldError("the element is not in Kite's world")
    token, local = target.ref
    return await world_of(target.frame.page).call(
        target.frame, _ON_JS % js, {"t": token, "i": local, "a": arg}
    )


def describe_element(el: Element) -> str:
    """'[12] button "Save"': the same role word as the element list the model reads."""
    name = f' "{el.name}"' if el.name else ""
    return f"[{el.index}] {role_word(el)}{name}"


def selector_engine(selector: str) -> str:
    """XPath when it starts with / or ( (e.g. //button, (//a)[2]), else CSS."""
    s = selector.strip()
    if s.startswith(("xpath=", "css=")):
        return s
    return f"xpath={s}" if s.startswith(("/", "(")) else s


async def resolve_selector(page: Page, selector: str) -> Target:
    loc = page.main_frame.locator(selector_engine(selector))
    try:
        count = await loc.count()
    except PlaywrightError as exc:
        raise InvalidSelectorError(
            f"{selector!r} is not a valid CSS selector or XPath; use the element's index from the list "
            f"instead ({str(exc).splitlines()[0]})",
            selector=selector,
        ) from exc
    if count == 0:
        raise ElementNotFoundError(
            f"selector {selector!r} matches no element; use the element's index from the list instead",
            selector=selector,
            count=0,
        )
    if count > 1:
        raise AmbiguousTargetError(
            f"selector {selector!r} matches {count} elements; make it unique or use an element index",
            selector=selector,
            count=count,
        )
    handle = await loc.element_handle(timeout=2000)
    return Target(page.main_frame, handle, None, f"selector {selector!r}")


async def resolve_index(ec: ExecContext, page: Page, index: int) -> Target:
    if ec.snapshotter is None:
        raise ActionError("element indexes need a snapshotter; use a selector or coordinates", index=index)
    resolved = await ec.snapshotter.resolve(page, index)  # raises StaleElementError with a fresh list
    await ec.resolved(index, resolved.handle, resolved.element)
    return _target(resolved)


def _target(resolved: ResolvedLike) -> Target:
    ref = getattr(resolved, "ref", None)
    return Target(resolved.frame, resolved.handle, resolved.element, describe_element(resolved.element), ref)


async def resolve_reading(
    ec: ExecContext, page: Page, index: int, js: str | None = None
) -> tuple[Target, Any]:
    """``resolve_index`` with one round trip fewer: the target's fingerprint (when the action keeps one) and
    ``js`` (a read-only function expression of the element) asked for in the same round trip as its handle.
    Returns the target and ``js``'s answer (None when it threw, or without ``js``)."""
    resolve_with = getattr(ec.snapshotter, "resolve_with", None)
    want = ec.fingerprint_of == index and ec.fingerprint is None and ec.take_fingerprint is not None
    if resolve_with is None or (js is None and not want):
        return await resolve_index(ec, page, index), None
    parts = ([f"fp: ({FINGERPRINT_JS})(el)"] if want else []) + ([f"got: ({js})(el)"] if js else [])
    resolved, got = await resolve_with(page, index, "(el) => ({" + ", ".join(parts) + "})")
    target = _target(resolved)
    got = got if isinstance(got, dict) else {}
    if want and "fp" in got:  # taken before any input, as ``ExecContext.resolved`` does
        ec.fingerprint = asyncio.get_running_loop().create_future()
        ec.fingerprint.set_result(fingerprint_from(got["fp"], resolved.element))
    else:
        await ec.resolved(index, resolved.handle, resolved.element)
    return target, got.get("got")


async def resolve_element(ec: ExecContext, page: Page, index: int | None, selector: str | None) -> Target:
    if index is not None:
        return await resolve_index(ec, page, index)
    if selector is not None:
        return await resolve_selector(page, selector)
    raise ActionError("no target given: pass 'index' or 'selector'")


async def viewport_size(page: Page) -> tuple[float, float]:
    vp = page.viewport_size
    if vp:
        return float(vp["width"]), float(vp["height"])
    w, h = await page.evaluate("() => [innerWidth, innerHeight]")
    return float(w), float(h)


async def check_point(page: Page, x: float, y: float) -> None:
    w, h = await viewport_size(page)
    if not (0 <= x < w and 0 <= y < h):
        raise OutsideViewportError(
            f"point ({x:g}, {y:g}) is outside the viewport ({w:g}x{h:g}); scroll first",
            x=x,
            y=y,
            viewport={"width": w, "height": h},
        )
