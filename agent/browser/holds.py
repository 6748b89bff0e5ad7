"""Holding the request, not only the click: state-changing requests judged at the network layer.

What pays, deletes or sends leaves the page as a request, whatever set it off (a click, Enter in a plain
field, a checkbox's change handler, a drag, a timer after the action). Each tab of a context gets a CDP
session of its own with ``Fetch.enable`` limited to the resource types that can carry such a request —
``Document`` (a form post navigates), ``XHR``, ``Fetch``, ``Ping`` (``sendBeacon``, ``<a ping>``) and
``Other`` — at the request stage; images, scripts, styles and fonts are never paused. A paused request is
answered at once when its method is safe (GET, HEAD, OPTIONS); a state-changing one (any other method) is
handed to the context's ``RequestJudge`` (the safety gate: a sensitive page or a sensitive target asks the
same confirmer an action asks, and a batch run declines), and a refused one is failed
(``Fetch.failRequest``, ``BlockedByClient``): it never reaches the server.

An approval covers what it approved: while an action the user approved runs, and ``COVER_GRACE_S`` after,
the judge is told the request is ``covered`` and nobody is asked twice.

Every judged request that was asked about or refused is logged (``log``), so the action that set it off (or
the page on its own, between two actions) reports it.

Limits: a GET navigation is not held (links and GET forms are judged at the click: their ``href`` or form
target); a request from a cross-site frame in a renderer of its own (site isolation), from a worker, or the
first request of a popup made before its tab is attached is not paused by a tab's session.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import TypedDict

from playwright.async_api import BrowserContext, CDPSession, Page, Request
from playwright.async_api import Error as PlaywrightError

from kite_browser.agent.browser.observation import Handled, HeldRequest, Observation

log = logging.getLogger(__name__)

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
HELD_TYPES = ("Document", "XHR", "Fetch", "Ping", "Other")
"""The resource types paused: those that can carry a state-changing request."""
COVER_GRACE_S = 3.0
"""How long after an approved action ends its approval still covers the requests it set off (a redirect, a
timer the page started as it ran)."""
FAILED_REASON = "BlockedByClient"
SAME_REQUEST_S = 5.0
"""A request judged once is not asked about again when the other interceptor sees it within this time."""


class _CdpRequest(TypedDict, total=False):
    method: str
    url: str


class _RequestPaused(TypedDict, total=False):
    """CDP's ``Fetch.requestPaused`` event: the parts a hold reads."""

    requestId: str
    request: _CdpRequest
    resourceType: str


@dataclass(frozen=True)
class PausedRequest:
    """A state-changing request as it is about to leave, for the judge."""

    method: str
    url: str
    kind: str
    page_url: str
    view: Observation | None
    """The latest observation of the tab that sends it, when it is of the tab's current URL."""
    covered: bool
    """An approved action is running (or just ran): its approval covers this request."""


Verdict = tuple[bool, Handled, str] | None
"""(allowed?, handled, reason) or None when the judge has no objection (the request goes, unlogged)."""
RequestJudge = Callable[[PausedRequest], Awaitable[Verdict]]
Refuse = Callable[[str, str], str | None]
"""The network (domain) policy's word on a request (url, resource type): why it may not leave (the policy
records it), or None. Applied to every paused request, whatever its method: Playwright's routes do not
see every beacon, ping or ``keepalive`` fetch, a tab's Fetch session does."""


class RequestHold:
    """The request hold of one browser context: a Fetch session per tab, the judge, what was held."""

    def __init__(self) -> None:
        self.judge: RequestJudge | None = None
        self.refuse: Refuse | None = None
        self.view: Callable[[Page], Observation | None] | None = None
        """The latest observation of a tab (the env's snapshotter), given to the judge."""
        self.log: list[HeldRequest] = []
        self.awaiting_user = False
        """True while a person is asked about a held request (the hang watchdog does not count it)."""
        self._sessions: dict[Page, CDPSession] = {}
        self._covering = 0
        self._covered_until = 0.0
        self._tasks: set[asyncio.Task[object]] = set()
        self._verdicts: dict[tuple[str, str], tuple[bool, float]] = {}
        self._deciding: dict[tuple[str, str], asyncio.Future[tuple[bool, HeldRequest | None]]] = {}

    # ----------------------------------------------------------------- wiring
    async def install(
        self, context: BrowserContext, judge: RequestJudge | None, refuse: Refuse | None = None
    ) -> None:
        """Judge the state-changing requests of every tab of ``context`` with ``judge``, and every held
        request with the network policy's ``refuse`` (both None: stop holding)."""
        self.judge, self.refuse = judge, refuse
        if judge is None and refuse is None:
            for page, cdp in list(self._sessions.items()):
                with contextlib.suppress(PlaywrightError):
                    await cdp.send("Fetch.disable")
                self._sessions.pop(page, None)
            return
        for page in context.pages:
            await self._attach(context, page)

    def watch(self, context: BrowserContext, page: Page) -> None:
        """A new tab: hold its requests too (set up at once, in the background)."""
        if self.judge is None and self.refuse is None:
            return
        with contextlib.suppress(RuntimeError):  # no running loop
            self._spawn(self._attach(context, page))

    async def _attach(self, context: BrowserContext, page: Page) -> None:
        if page in self._sessions or page.is_closed():
            return
        try:
            cdp = await context.new_cdp_session(page)
            self._sessions[page] = cdp
            cdp.on("Fetch.requestPaused", lambda event: self._spawn(self._paused(cdp, page, event)))
            patterns = [{"urlPattern": "*", "resourceType": t, "requestStage": "Request"} for t in HELD_TYPES]
            await cdp.send("Fetch.enable", {"patterns": patterns})
        except PlaywrightError:
            self._sessions.pop(page, None)  # the tab is gone, or the browser refuses CDP

    def forget(self, page: Page) -> None:
        self._sessions.pop(page, None)

    def _spawn(self, call: Awaitable[None]) -> None:
        task = asyncio.ensure_future(call)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ----------------------------------------------------------------- approvals
    @contextlib.contextmanager
    def covering(self) -> Iterator[None]:
        """Requests sent while the block runs, and ``COVER_GRACE_S`` after, are covered by an approval."""
        self._covering += 1
        try:
            yield
        finally:
            self._covering -= 1
            self._covered_until = time.monotonic() + COVER_GRACE_S

    @property
    def covered(self) -> bool:
        return self._covering > 0 or time.monotonic() < self._covered_until

    # ----------------------------------------------------------------- one request
    async def _paused(self, cdp: CDPSession, page: Page, event: _RequestPaused) -> None:
        request_id = event.get("requestId")
        request = event.get("request") or _CdpRequest()
        method = str(request.get("method", "GET")).upper()
        url, kind = str(request.get("url", "")), str(event.get("resourceType", "Other")).lower()
        allowed = True
        if self.refuse is not None and self.refuse(url, kind):
            allowed = False  # the domain policy recorded it: reported as its other blocks are
        elif method not in SAFE_METHODS:
            allowed = await self.decide(page, method, url, kind)
        try:
            if allowed:
                await cdp.send("Fetch.continueRequest", {"requestId": request_id})
            else:
                await cdp.send("Fetch.failRequest", {"requestId": request_id, "errorReason": FAILED_REASON})
        except PlaywrightError:
            pass  # the tab or the request is gone

    async def decide(self, page: Page | None, method: str, url: str, kind: str) -> bool:
        """Whether a state-changing request may leave, judged once: a tab's Fetch session and the domain
        policy's route (``safety.domains``) may both see the same request, in either order; the second asks
        nobody and takes the first one's verdict (for ``SAME_REQUEST_S``)."""
        judge = self.judge
        if judge is None:
            return True
        key, now = (method, url), time.monotonic()
        self._verdicts = {k: v for k, v in self._verdicts.items() if now - v[1] < SAME_REQUEST_S}
        if (known := self._verdicts.get(key)) is not None:
            return known[0]
        pending = self._deciding.get(key)
        if pending is None:
            pending = asyncio.ensure_future(self._judge(judge, page, method, url, kind))
            self._deciding[key] = pending
        try:
            allowed, held = await asyncio.shield(pending)
        finally:
            self._deciding.pop(key, None)
        if key not in self._verdicts:
            self._verdicts[key] = (allowed, time.monotonic())
            if held is not None:
                self.log.append(held)
        return allowed

    async def _judge(
        self, judge: RequestJudge, page: Page | None, method: str, url: str, kind: str
    ) -> tuple[bool, HeldRequest | None]:
        page_url = ""
        with contextlib.suppress(PlaywrightError):
            page_url = page.url if page is not None else ""
        view = self.view(page) if self.view is not None and page is not None else None
        if view is not None and view.url.split("#", 1)[0] != page_url.split("#", 1)[0]:
            view = None  # an observation of another document (the same one scrolled to an anchor is kept)
        paused = PausedRequest(method, url, kind, page_url, view, self.covered)
        self.awaiting_user = True
        try:
            verdict = await judge(paused)
        except Exception as exc:  # a failing judge refuses: the request never leaves
            log.warning("request judge failed: %s", exc)
            verdict = (False, "declined", f"the safety check failed ({exc!r})")
        finally:
            self.awaiting_user = False
        if verdict is None:
            return True, None
        allowed, handled, reason = verdict
        return allowed, HeldRequest(
            method=method, url=url, kind=kind, page_url=page_url, handled=handled, reason=reason
        )

    async def on_route(self, request: Request) -> bool:
        """The domain policy's route saw a state-changing request (Playwright's ``Request``): may it leave?"""
        page = None
        with contextlib.suppress(PlaywrightError, AttributeError):
            page = request.frame.page
        return await self.decide(page, request.method.upper(), request.url, request.resource_type.lower())

    def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        self._sessions.clear()


async def hold_raw_context(context: BrowserContext, refuse: Refuse) -> RequestHold:
    """Hold every tab of a context no ``ContextSession`` tracks (``run_javascript``'s sandbox) to the domain
    policy's ``refuse``: its beacons, pings and keepalive fetches pass no route, but they are paused here."""
    hold = RequestHold()
    await hold.install(context, None, refuse)
    context.on("page", lambda page: hold.watch(context, page))
    return hold
