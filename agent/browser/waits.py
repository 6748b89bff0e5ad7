"""Settle strategies: wait just enough after an action for the page to finish reacting to it.

``Settler.mark(page)`` is taken right before an action; ``Settler.settle(page, mark, action)`` runs after it:

1. follow a navigation the action started (domcontentloaded, then ``load`` up to ``navigation_load_cap_ms``);
2. network quiet: no in-flight document/fetch/xhr/script request (ignoring websockets, event streams and
   requests older than ``network_stall_ms``) for ``network_quiet_ms`` -- only when the action started one;
3. DOM quiet: no mutation for ``dom_quiet_ms`` -- only when the action mutated the DOM.

Everything is capped by ``settle_cap_ms`` (or ``per_action[action]``). When nothing happened the settle
returns after a short grace period (~30 ms). The in-page observer also counts interactive elements added
and removed, which the executor reports as effects.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page, Request

from agent.config import WaitConfig

TRACKED_TYPES = frozenset({"document", "fetch", "xhr", "script"})
GRACE_MS = 30

# Installs (once per document) a MutationObserver counting mutations and interactive elements added/removed.
_INSTALL_JS = """() => {
  let s = window.__kiteSettle;
  if (!s) {
    const SEL = 'a[href],button,input,select,textarea,summary,[role=button],[role=link],[role=checkbox],' +
      '[role=option],[role=menuitem],[role=tab],[role=combobox],[onclick],[contenteditable=""],[contenteditable=true],[tabindex]';
    const count = (n) => n.nodeType !== 1 ? 0 : (n.matches(SEL) ? 1 : 0) + n.querySelectorAll(SEL).length;
    s = window.__kiteSettle = {count: 0, last: 0, added: 0, removed: 0};
    new MutationObserver((records) => {
      s.count += records.length; s.last = performance.now();
      for (const r of records) {
        for (const n of r.addedNodes) s.added += count(n);
        for (const n of r.removedNodes) s.removed += count(n);
      }
    }).observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  }
  return {count: s.count, added: s.added, removed: s.removed, now: performance.now()};
}"""

# Waits in the page until the DOM is quiet (or the cap), then reports what changed since the mark.
_QUIET_JS = """async ([mark, quiet, grace, cap]) => {
  const s = window.__kiteSettle;
  if (!s) return null;
  const t0 = performance.now();
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  await sleep(Math.min(grace, cap));
  while (performance.now() - t0 < cap) {
    if (s.count === mark.count) break;
    if (performance.now() - s.last >= quiet) break;
    await sleep(Math.max(5, Math.min(20, quiet - (performance.now() - s.last))));
  }
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  let focused = null;
  if (a && a !== document.body && a !== document.documentElement) {
    const name = (a.getAttribute('aria-label') || a.getAttribute('name') || a.getAttribute('placeholder') || a.innerText || '').trim().slice(0, 40);
    focused = a.tagName.toLowerCase() + (a.id ? '#' + a.id : '') + (name ? ` "${name}"` : '');
  }
  return {changed: s.count - mark.count, added: s.added - mark.added, removed: s.removed - mark.removed, focused};
}"""


@dataclass
class _Inflight:
    started: float
    frame_is_main: bool
    resource_type: str


@dataclass
class RequestTracker:
    """In-flight requests of one page (document/fetch/xhr/script only)."""

    inflight: dict[Request, _Inflight] = field(default_factory=dict)
    started_total: int = 0
    last_activity: float = 0.0
    main_navigations: int = 0
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    async def wait_change(self, timeout_s: float) -> None:
        """Return when a tracked request starts or ends (or after timeout_s)."""
        self.changed.clear()
        try:
            await asyncio.wait_for(self.changed.wait(), max(0.0, timeout_s))
        except TimeoutError:
            pass

    def attach(self, page: Page) -> None:
        page.on("request", self._on_request)
        page.on("requestfinished", self._on_done)
        page.on("requestfailed", self._on_done)
        page.on("framenavigated", self._on_nav)

    def _on_request(self, request: Request) -> None:
        rtype = request.resource_type
        if rtype not in TRACKED_TYPES:
            return
        try:
            frame = request.frame
            is_main = frame.parent_frame is None
        except PlaywrightError:  # service-worker requests have no frame
            is_main = False
        self.inflight[request] = _Inflight(time.monotonic(), is_main, rtype)
        self.started_total += 1
        self.last_activity = time.monotonic()
        self.changed.set()

    def _on_done(self, request: Request) -> None:
        if self.inflight.pop(request, None) is not None:
            self.last_activity = time.monotonic()
            self.changed.set()

    def _on_nav(self, frame: Frame) -> None:
        if frame.parent_frame is None:
            self.main_navigations += 1
            self.changed.set()

    def busy(self, stall_s: float) -> bool:
        now = time.monotonic()
        return any(now - r.started < stall_s for r in self.inflight.values())

    def main_document_pending(self) -> bool:
        return any(r.frame_is_main and r.resource_type == "document" for r in self.inflight.values())


@dataclass
class PageMark:
    """State of a page taken right before an action."""

    url: str
    started_total: int
    main_navigations: int
    dom: dict[str, Any] | None
    t0: float


@dataclass
class SettleReport:
    navigated: bool = False
    waited_ms: float = 0.0
    added: int = 0
    removed: int = 0
    dom_changed: int = 0
    network_requests: int = 0
    timed_out: bool = False
    focused: str | None = None
    """The focused element after the settle (when the in-page wait ran)."""
    focus_known: bool = False
    steps: list[str] = field(default_factory=list)


class Settler:
    """Per-page request tracking plus the settle algorithm."""

    def __init__(self, config: WaitConfig) -> None:
        self.config = config
        self._trackers: dict[Page, RequestTracker] = {}

    def tracker(self, page: Page) -> RequestTracker:
        tr = self._trackers.get(page)
        if tr is None:
            tr = self._trackers[page] = RequestTracker()
            tr.attach(page)
            page.once("close", lambda _p: self._trackers.pop(page, None))
        return tr

    async def mark(self, page: Page) -> PageMark:
        tr = self.tracker(page)
        dom: dict[str, Any] | None
        try:
            dom = await page.evaluate(_INSTALL_JS)
        except PlaywrightError:
            dom = None
        return PageMark(page.url, tr.started_total, tr.main_navigations, dom, time.monotonic())

    def cap_ms(self, action: str) -> int:
        return self.config.per_action.get(action, self.config.settle_cap_ms)

    async def settle(
        self, page: Page, mark: PageMark, action: str, cap_ms: int | None = None
    ) -> SettleReport:
        cfg = self.config
        cap = (cap_ms if cap_ms is not None else self.cap_ms(action)) / 1000
        t_start = time.monotonic()
        deadline = t_start + cap
        tr = self.tracker(page)
        rep = SettleReport()

        def left() -> float:
            return max(0.0, deadline - time.monotonic())

        # 1. A navigation the action started: wait for the document response to commit, then the load events.
        if tr.main_document_pending() or tr.main_navigations != mark.main_navigations:
            while tr.main_document_pending() and left() > 0 and not page.is_closed():
                await tr.wait_change(min(left(), 0.1))
            if tr.main_navigations != mark.main_navigations and not page.is_closed():
                rep.navigated = True
                rep.steps.append("navigation")
                await self._load_state(page, "domcontentloaded", left())
                await self._load_state(page, "load", min(left(), cfg.navigation_load_cap_ms / 1000))

        # 2 + 3. Network quiet then DOM quiet, repeated while either keeps changing (bounded by the cap).
        dom_mark = mark.dom
        if rep.navigated:
            dom_mark = None  # a new document: its mutations are not the action's
        for _ in range(5):
            if page.is_closed() or left() <= 0:
                break
            if tr.started_total != mark.started_total:
                rep.network_requests = tr.started_total - mark.started_total
                await self._network_quiet(tr, left)
            dom = await self._dom_quiet(page, dom_mark, left())
            if dom is not None and dom_mark is not None:
                rep.added += dom["added"]
                rep.removed += dom["removed"]
                rep.dom_changed += dom["changed"]
                rep.focused, rep.focus_known = dom.get("focused"), True
            if not tr.busy(cfg.network_stall_ms / 1000):
                break
            try:
                dom_mark = await page.evaluate(_INSTALL_JS)
            except PlaywrightError:
                dom_mark = None
        rep.timed_out = left() <= 0
        rep.waited_ms = (time.monotonic() - t_start) * 1000
        return rep

    async def _network_quiet(self, tr: RequestTracker, left: Any) -> None:
        stall = self.config.network_stall_ms / 1000
        quiet = self.config.network_quiet_ms / 1000
        while left() > 0:
            if tr.busy(stall):
                await tr.wait_change(min(left(), 0.1))
                continue
            idle = time.monotonic() - tr.last_activity
            if idle >= quiet:
                return
            await tr.wait_change(min(quiet - idle, left()))

    async def _dom_quiet(
        self, page: Page, mark: dict[str, Any] | None, left_s: float
    ) -> dict[str, Any] | None:
        if mark is None:
            # New document (or no observer): just make sure one is installed for the next action.
            try:
                await page.evaluate(_INSTALL_JS)
            except PlaywrightError:
                pass
            return None
        args = [mark, self.config.dom_quiet_ms, GRACE_MS, max(0, int(left_s * 1000))]
        try:
            return await asyncio.wait_for(page.evaluate(_QUIET_JS, args), timeout=left_s + 0.5)
        except (PlaywrightError, TimeoutError):
            return None

    @staticmethod
    async def _load_state(page: Page, state: str, timeout_s: float) -> None:
        if timeout_s <= 0:
            return
        try:
            await page.wait_for_load_state(state, timeout=timeout_s * 1000)  # type: ignore[arg-type]
        except PlaywrightError:
            pass
