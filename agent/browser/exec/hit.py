"""Where to put the mouse for an element: its visible centre, hit-tested with elementFromPoint.

The hit test runs in Kite's world (agent/browser/world.py): a page that replaces ``elementFromPoint`` or
``getBoundingClientRect`` on its prototypes changes nothing it reads."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TypedDict

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from kite_browser.agent.browser.exec import guard
from kite_browser.agent.browser.exec.base import ElementCoveredError, ExecContext
from kite_browser.agent.browser.exec.targets import Target, describe_element, on_target, resolve_reading

# In the element's own frame: the centre of its visible part, and what elementFromPoint finds there.
HIT_JS = """(el) => {
  const r = el.getBoundingClientRect();
  const vw = innerWidth, vh = innerHeight;
  const l = Math.max(r.left, 0), t = Math.max(r.top, 0), rt = Math.min(r.right, vw), b = Math.min(r.bottom, vh);
  if (!el.isConnected || r.width < 1 || r.height < 1 || rt - l < 1 || b - t < 1) return {visible: false};
  const cx = (l + rt) / 2, cy = (t + b) / 2;
  const deep = (root, x, y) => {
    let h = root.elementFromPoint(x, y);
    while (h && h.shadowRoot) { const inner = h.shadowRoot.elementFromPoint(x, y); if (!inner || inner === h) break; h = inner; }
    return h;
  };
  const up = (n) => n.parentNode instanceof ShadowRoot ? n.parentNode.host : n.parentElement;
  const inside = (n, anc) => { for (let c = n; c; c = up(c)) if (c === anc) return true; return false; };
  const labels = el.labels ? Array.from(el.labels) : [];
  const lands = (h) => h && (inside(h, el) || labels.some((lab) => inside(h, lab)) || (h.tagName === 'LABEL' && h.control === el));
  const hit = deep(document, cx, cy);
  const base = {visible: true, cx, cy, left: r.left, top: r.top};
  if (!hit) return {...base, hit: 'none'};
  if (lands(hit)) return {...base, hit: 'self'};
  if (inside(el, hit)) return {...base, hit: 'ancestor'};
  // A transparent, non-interactive box over it (what a person looks through): the click goes through it.
  const api = window.__kiteExtractor;
  const covers = api && api.throughAt ? api.throughAt(el, cx, cy) : null;
  if (covers && covers.length) return {...base, hit: 'self', through: covers[0].tagName.toLowerCase()};
  // The centre is covered: any other visible part of the element will do (a partly covered button).
  for (const [fx, fy] of [[.25,.5],[.75,.5],[.5,.25],[.5,.75],[.25,.25],[.75,.25],[.25,.75],[.75,.75],[.1,.5],[.9,.5],[.5,.1],[.5,.9]]) {
    const x = l + (rt - l) * fx, y = t + (b - t) * fy;
    if (lands(deep(document, x, y))) return {...base, cx: x, cy: y, hit: 'self'};
  }
  let root = hit;
  while (up(root) && !inside(el, up(root)) && up(root) !== document.body && up(root) !== document.documentElement) root = up(root);
  const desc = (n) => { const b = n.getBoundingClientRect();
    return {tag: n.tagName.toLowerCase(), id: n.id || null, text: (n.innerText || n.getAttribute('aria-label') || '').trim().replace(/\\s+/g, ' ').slice(0, 40),
            rect: {x: b.left, y: b.top, width: b.width, height: b.height}}; };
  return {...base, hit: 'other', cover: desc(root), hitEl: desc(hit)};
}"""


# Until a piece of the element hit-tests to it (a cover sliding away, a panel still opening), at most ``ms``.
UNCOVERED_JS = (
    "(el, ms) => new Promise((done) => { const probe = "
    + HIT_JS
    + """; const t0 = performance.now(); const timer = setTimeout(() => done(false), ms);
  const tick = () => { const p = probe(el);
    if (p.visible && p.hit === 'self') { clearTimeout(timer); done(true); }
    else if (performance.now() - t0 < ms) requestAnimationFrame(tick); };
  tick(); })"""
)
UNCOVER_WAIT_MS = 500
"""How long a covered element is watched for its cover to move away (an animation in progress: an accordion
panel still opening over the link the next click wants, a toast sliding out) before it is called covered."""


# Under a sticky header or a fixed cookie bar, or scrolled out of sight inside a scrollable box: scroll it to the
# middle of the viewport (and of its box).
UNBAR_JS = """(el) => {
  const api = window.__kiteExtractor;
  if (!api || !api.underBar || !(api.underBar(el) || api.scrolledOut(el))) return false;
  el.scrollIntoView({block: 'center', inline: 'nearest', behavior: 'instant'});
  return true;
}"""


class Box(TypedDict, total=False):
    """An element ``HIT_JS`` names (what covers the target, or what the point lands on)."""

    tag: str
    id: str
    text: str
    rect: dict[str, float]


@dataclass
class Probe:
    visible: bool
    hit: str = "none"
    """self (lands on the element), other (covered), ancestor (lands on a parent), none."""
    x: float = 0.0
    y: float = 0.0
    cover: Box | None = None
    hit_el: Box | None = None
    through: str | None = None
    """The tag of a transparent, non-interactive box over the element that the click must pass through."""
    local: tuple[float, float] = (0.0, 0.0)
    """The point in the element's own frame."""
    seen: dict[str, int] | None = None
    """The input guard's count of mouse moves and presses in the element's frame when it was first probed
    (``resolve_probe(seen=True)``): what a look sent along with the next input waits past."""


async def probe(target: Target, scroll: bool = True, first: object = None) -> Probe:
    """Find the element's visible centre in top-level viewport pixels (scrolling it into view if needed).
    ``first``: ``HIT_JS``'s answer already read (``resolve_probe``)."""
    h = target.handle
    try:
        p = first if isinstance(first, dict) else await on_target(target, HIT_JS)
        if not p.get("visible") and scroll:
            try:
                await h.scroll_into_view_if_needed(timeout=1500)
            except PlaywrightError:
                pass
            p = await on_target(target, HIT_JS)
        if p.get("hit") == "other" and scroll and await on_target(target, UNBAR_JS):
            p = await on_target(target, HIT_JS)
    except PlaywrightError:
        return Probe(visible=False)
    if not p.get("visible"):
        return Probe(visible=False)
    off_x = off_y = 0.0
    if target.frame.parent_frame is not None:  # inside an iframe: add the frame's offset in the top viewport
        box = await h.bounding_box()
        if box is None:
            return Probe(visible=False)
        off_x, off_y = box["x"] - p["left"], box["y"] - p["top"]
        if not await _in_top_view(target.frame.page, p["cx"] + off_x, p["cy"] + off_y):
            # In view in its own frame, but the frame is out of the top page's view: the mouse cannot land there.
            if not scroll:
                return Probe(visible=False)
            await _frames_into_view(target)
            return await probe(target, scroll=False)
    return Probe(
        True,
        p["hit"],
        p["cx"] + off_x,
        p["cy"] + off_y,
        p.get("cover"),
        p.get("hitEl"),
        p.get("through"),
        (p["cx"], p["cy"]),
        first.get("seen") if isinstance(first, dict) else None,
    )


async def _frames_into_view(target: Target) -> None:
    """Scroll each frame holding the element into its parent's view, the innermost first (the element's own
    scroll-into-view stops at its frame: there it is in view already)."""
    frame = target.frame
    with contextlib.suppress(PlaywrightError):
        while frame.parent_frame is not None:
            holder = await frame.frame_element()
            await holder.scroll_into_view_if_needed(timeout=1500)
            frame = frame.parent_frame


async def _in_top_view(page: Page, x: float, y: float) -> bool:
    """Whether a point in top-level viewport pixels is inside the top page's viewport."""
    size = page.viewport_size
    if size is None:  # a window without a fixed viewport (an attached browser): ask the page
        try:
            width, height = await page.evaluate("() => [innerWidth, innerHeight]")
        except PlaywrightError:
            return True
    else:
        width, height = size["width"], size["height"]
    return 0 <= x < width and 0 <= y < height


# HIT_JS, and the input guard's count of the moves and presses dispatched in the element's frame so far.
_HIT_SEEN_JS = f"""(el) => {{ const out = ({HIT_JS})(el);
  try {{ out.seen = {guard.op_call("seen")}; }} catch (e) {{}}
  return out; }}"""


async def resolve_probe(ec: ExecContext, page: Page, index: int, seen: bool = False) -> tuple[Target, Probe]:
    """``resolve_index`` and ``probe`` with one round trip fewer: the element's first hit test (and its
    fingerprint, when the action keeps one) asked for in the same round trip as its handle. ``seen``: and
    the input guard's count of moves and presses (``Probe.seen``)."""
    target, hit = await resolve_reading(ec, page, index, _HIT_SEEN_JS if seen else HIT_JS)
    return target, await probe(target, first=hit)


_THROUGH_JS = """(el, [x, y, on]) => {
  const api = window.__kiteExtractor;
  if (on) {
    const covers = (api && api.throughAt && api.throughAt(el, x, y)) || [];
    window.__kiteThrough = covers.map((n) => [n, n.style.getPropertyValue('pointer-events'), n.style.getPropertyPriority('pointer-events')]);
    for (const [n] of window.__kiteThrough) n.style.setProperty('pointer-events', 'none', 'important');
    return covers.length;
  }
  for (const [n, v, p] of window.__kiteThrough || []) {
    if (v) n.style.setProperty('pointer-events', v, p); else n.style.removeProperty('pointer-events');
  }
  window.__kiteThrough = [];
  return 0;
}"""


@asynccontextmanager
async def through_covers(target: Target, pr: Probe) -> AsyncIterator[None]:
    """While open, the transparent boxes over the element let the pointer through (restored after)."""
    if not pr.through:
        yield
        return
    await on_target(target, _THROUGH_JS, [*pr.local, True])
    try:
        yield
    finally:
        with contextlib.suppress(PlaywrightError):
            await on_target(target, _THROUGH_JS, [*pr.local, False])


def _same_rect(a: dict[str, float], b: object) -> bool:
    return all(abs(a[k] - getattr(b, k)) <= 1.5 for k in ("x", "y", "width", "height"))


def cover_label(ec: ExecContext, page: Page, pr: Probe) -> str:
    """Name the cover as the model knows it: '[31] div "Accept cookies"' when the snapshot has it."""
    cover = pr.cover or Box()
    last = ec.snapshotter.last(page) if ec.snapshotter is not None else None
    if last is not None:
        for cand in (pr.hit_el, cover):
            if not cand:
                continue
            for el in last.elements:
                if el.frame is None and _same_rect(cand["rect"], el.rect):
                    return describe_element(el)
    text = f' "{cover.get("text")}"' if cover.get("text") else ""
    ident = f"#{cover['id']}" if cover.get("id") else ""
    return f"{cover.get('tag', 'element')}{ident}{text}"


async def uncovered_soon(target: Target, ms: int = UNCOVER_WAIT_MS) -> bool:
    """Whether the covered ``target`` is hit by the pointer again within ``ms`` (a cover on the move)."""
    try:
        return bool(await on_target(target, UNCOVERED_JS, ms))
    except PlaywrightError:
        return False


def raise_covered(ec: ExecContext, page: Page, target: Target, pr: Probe, verb: str) -> None:
    what = cover_label(ec, page, pr)
    raise ElementCoveredError(
        f"cannot {verb} {target.label}: covered by {what} at ({pr.x:.0f}, {pr.y:.0f}); close or dismiss it first",
        covered_by=what,
        x=round(pr.x),
        y=round(pr.y),
    )


async def describe_point(page: Page, x: float, y: float) -> str:
    try:
        d = await page.evaluate(
            """([x, y]) => { const h = document.elementFromPoint(x, y); if (!h) return '';
            const t = (h.innerText || h.value || h.getAttribute('aria-label') || '').trim().replace(/\\s+/g, ' ').slice(0, 40);
            return h.tagName.toLowerCase() + (t ? ` "${t}"` : ''); }""",
            [x, y],
        )
    except PlaywrightError:
        return ""
    return str(d)
