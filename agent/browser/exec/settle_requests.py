"""The network half of the settle (``agent/browser/waits.py``): the requests of one page in flight, seen through
Playwright's request events (document/fetch/xhr/script tracked; images, stylesheets, fonts ... only as what
may hold up the load event)."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page, Request, Response

TRACKED_TYPES = frozenset({"document", "fetch", "xhr", "script"})
PAGE_TRACKED_TYPES = frozenset({"fetch", "xhr"})
"""Requests the in-page observer also counts (until the page's code has their answer)."""


@dataclass
class _Inflight:
    started: float
    frame_is_main: bool
    resource_type: str
    responded: bool = False
    """Its response headers arrived (its body may still be streaming)."""


@dataclass
class RequestTracker:
    """In-flight requests of one page (document/fetch/xhr/script only; ``loading``: the other kinds)."""

    inflight: dict[Request, _Inflight] = field(default_factory=dict)
    loading: dict[Request, float] = field(default_factory=dict)
    """Images, stylesheets, fonts, media ... in flight (since when): they may hold up the load event."""
    started_total: int = 0
    documents_total: int = 0
    """Top-frame document requests started (a navigation, a redirect's next hop)."""
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
        page.on("response", self._on_response)
        page.on("framenavigated", self._on_nav)

    def _on_request(self, request: Request) -> None:
        rtype = request.resource_type
        if rtype not in TRACKED_TYPES:
            self.loading[request] = time.monotonic()
            return
        try:
            frame = request.frame
            is_main = frame.parent_frame is None
        except PlaywrightError:  # service-worker requests have no frame
            is_main = False
        self.inflight[request] = _Inflight(time.monotonic(), is_main, rtype)
        self.started_total += 1
        self.documents_total += is_main and rtype == "document"
        self.last_activity = time.monotonic()
        self.changed.set()

    def _on_response(self, response: Response) -> None:
        try:
            entry = self.inflight.get(response.request)
        except PlaywrightError:
            return
        if entry is not None and not entry.responded:
            entry.responded = True
            self.changed.set()

    def _on_done(self, request: Request) -> None:
        self.loading.pop(request, None)
        if self.inflight.pop(request, None) is not None:
            self.last_activity = time.monotonic()
            self.changed.set()

    def _on_nav(self, frame: Frame) -> None:
        if frame.parent_frame is None:
            self.main_navigations += 1
            self.changed.set()

    def busy(self, stall_s: float, page_counts: bool = False, since: float | None = None) -> bool:
        """A tracked request younger than ``stall_s`` is in flight. ``page_counts``: the document's observer
        counts its fetches/XHRs itself (until the page's code has the answer), so one whose response has begun
        to arrive is left to it: a streamed body that never ends is not a request still to wait for.
        ``since``: only a request started then or later counts."""
        now = time.monotonic()
        return any(
            now - r.started < stall_s
            and (since is None or r.started >= since)
            and not (page_counts and r.responded and r.resource_type in PAGE_TRACKED_TYPES)
            for r in self.inflight.values()
        )

    def only_stalled(self, stall_s: float) -> bool:
        """Requests are in flight, of any kind, and every one of them for ``stall_s`` or longer (the load
        event they hold up may never come: an image from a server that never answers)."""
        now = time.monotonic()
        starts = [*self.loading.values(), *(r.started for r in self.inflight.values())]
        return bool(starts) and all(now - t >= stall_s for t in starts)

    def main_document_pending(self) -> bool:
        return any(r.frame_is_main and r.resource_type == "document" for r in self.inflight.values())
