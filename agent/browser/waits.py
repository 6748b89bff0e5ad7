"""Settle strategies: wait just enough after an action for the page to finish reacting to it.

``Settler.mark(page)`` is taken right before an action; ``Settler.settle(page, mark, action)`` runs after it,
in rounds (at most ``MAX_ROUNDS``) until nothing new happened:

1. follow a navigation the action started (domcontentloaded, then ``load`` up to ``navigation_load_cap_ms``,
   or until everything still loading has been for ``network_stall_ms``: an image from a server that never
   answers holds up the load event for ever), including one the page starts later from a timer or a promise
   (the in-page ``navigate`` hook says so);
2. network quiet: no in-flight document/fetch/xhr/script request (ignoring websockets, event streams and
   requests older than ``network_stall_ms``) for ``network_quiet_ms`` -- only when the action started one;
3. DOM quiet, in every frame at once: no mutation for an adaptive window (``dom_quiet_ms``, stretched to twice
   the largest gap seen between mutation bursts, at most ``QUIET_STRETCH`` x), no pending short timer the
   action scheduled (``FOLLOW_TIMER_MS``; a hover's up to 500 ms, ``follow_ms``), no short interval it started still running (an animation on a timer,
   ``FOLLOW_INTERVAL_MS`` at most) and no fetch/XHR of the page's awaiting its answer.

A document a navigation opened is watched from its first line (the observer is an init script of the page, see
``settle_js.init_js``): the timers it sets while loading are followed, its fetches and XHRs counted until the
page's code has its answer, and its DOM must be quiet since its last mutation. So after a navigation, step 2
waits for the in-flight requests to end but not for the ``network_quiet_ms`` idle window on top (a wall-clock
guess at "nothing more will start" that every navigation paid in full, ~500 ms, on pages long settled): what
could start one more request is what step 3 watches, and a request that does start begins another round. On
such a document a fetch/XHR whose answer has begun to arrive no longer holds step 2 either (the page may be
reading a stream that never ends): the page-side count says whether its code still waits for the whole body.

``waits.navigation_settle: window`` turns that off (no init script; after a navigation the load event, then the
``network_quiet_ms`` window, as before): ``evals/bench/settle_compare.py`` compares the two.

After an action (no navigation), the wait is as short as the action's effect allows, by events, not a clock:
the page acknowledged the input (its handlers ran) before the wait begins, so it ends once no followed timer,
fetch/XHR or navigation is pending and the page drew a frame with no mutation (two when the page asked for an
animation frame since the mark, or a page that updates in steps: twice its largest gap); a document that draws
no frames (a hidden tab, an undrawn frame) waits ``GRACE_MS`` by the clock. A window the page opens has its
first document answered or refused before the settle ends (``NAV_START_S`` at most).

Everything is capped by ``settle_cap_ms`` (or ``per_action[action]``). The in-page observers also count
interactive elements added and removed, which the executor reports as effects.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, TypedDict

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page

from kite_browser.agent.base.jsontypes import JsonObject, JsonValue
from kite_browser.agent.browser.exec.settle_js import (
    FOLLOW_TIMER_MS,
    INSTALL_JS,
    QUIET_JS,
    follow_ms,
    init_js,
    mark_then,
    quiet_then,
)
from kite_browser.agent.browser.exec.settle_requests import RequestTracker
from kite_browser.agent.browser.exec.spec import FirstCall
from kite_browser.agent.config import WaitConfig

GRACE_MS = 30
"""A new document's settle watches at least this long for a late reaction (a fetch, a timer, a navigation); so
does an action's in a document that draws no frames (nothing else to go by)."""
QUIET_STRETCH = 4
"""The DOM-quiet window grows up to this multiple of dom_quiet_ms for pages that update in steps."""
MAX_ROUNDS = 6
NAV_START_S = 0.5
"""After the page announced a navigation: how long to wait for its request to show up."""
MARK_TIMEOUT_S = 1.0

DomMarks = dict[Frame, JsonObject]
"""The in-page mark of each frame (handed back to the page by the wait; Kite reads only ``fresh``)."""


class FirstAnswer(TypedDict, total=False):
    """The answer of an action's ``FirstCall``: its value, or what it threw."""

    value: JsonValue
    error: str


class QuietAnswer(TypedDict, total=False):
    """What a frame's in-page wait (``QUIET_JS``) reports as it ends."""

    added: int
    removed: int
    changed: int
    stateChanged: bool
    opened: int
    focused: str | None
    after: JsonValue
    nav: bool
    ms: float


class _MarkAnswers(TypedDict, total=False):
    first: FirstAnswer
    quiet: QuietAnswer


HeldBy = Literal["all", "since_mark", "none"]
"""The page's fetches and XHRs that hold an in-page wait: all, those begun since the mark, none."""

_watched: weakref.WeakSet[Page] = weakref.WeakSet()
"""Pages whose new documents get the settle observer at document start (a page Kite acted on: attached to the
user's own Chrome, the tabs Kite never touched get nothing)."""


@dataclass
class PageMark:
    """State of a page taken right before an action."""

    url: str
    started_total: int
    main_navigations: int
    dom: DomMarks
    """The in-page mark of every frame that answered (top frame included when it did)."""
    t0: float
    pages: frozenset[Page] = frozenset()
    """The context's pages before the action (a window it opens is the one not among them)."""
    first: FirstAnswer | None = None
    """The answer of the action's ``FirstCall``, made right after the top frame's mark: ``{"value": ...}`` or
    ``{"error": "..."}`` (what it threw); None when none was asked for or the top frame did not answer."""
    quiet: QuietAnswer | None = None
    """The top frame's in-page wait made in the same call (``FirstCall.settles``); None when not made."""


@dataclass
class SettleReport:
    navigated: bool = False
    waited_ms: float = 0.0
    added: int = 0
    removed: int = 0
    dom_changed: int = 0
    state_changed: bool = False
    """Focus, scroll position, URL or a form field's state changed (things that need no DOM mutation)."""
    network_requests: int = 0
    timed_out: bool = False
    focused: str | None = None
    """The focused element after the settle (when the in-page wait ran in the top frame)."""
    focus_known: bool = False
    opened: int = 0
    """Windows the page opened (``window.open``, a link or form aimed at another window)."""
    after: JsonValue = None
    """What the caller's ``after_js`` read in the top frame as the settle ended (None when it did not run)."""
    steps: list[str] = field(default_factory=list)
    waited_ms_before: float = 0.0
    """Of ``waited_ms``: the in-page wait made in the action's mark call, before the settle itself began."""


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

            def drop(_page: Page) -> None:
                self._trackers.pop(page, None)

            page.once("close", drop)
        return tr

    async def mark(
        self, page: Page, first: FirstCall | None = None, action: str = "", effect_only: bool = False
    ) -> PageMark:
        """The page's state right before an action; ``first``: the action's first call into the top frame,
        made in the same call right after the top frame's mark (its answer is ``PageMark.first``; with the
        settle's in-page wait for ``action`` when it ``settles``, ``effect_only`` as ``settle`` takes it)."""
        tr = self.tracker(page)
        await self._watch_new_documents(page)
        answers: _MarkAnswers = {}
        t0 = time.monotonic()  # before the mark call: ``first`` may start requests in it
        dom = await self._mark_frames(
            page,
            first=first,
            answers=answers,
            cap_ms=self.cap_ms(action),
            effect_only=effect_only,
            follow=follow_ms(action),
        )
        pages = frozenset(page.context.pages)
        return PageMark(
            page.url,
            tr.started_total,
            tr.main_navigations,
            dom,
            t0,
            pages,
            answers.get("first"),
            answers.get("quiet"),
        )

    async def quiet(self, page: Page, fresh: bool = True) -> SettleReport:
        """Wait for the page's own loading, which an ``effect_only`` settle left: its requests answered, its
        followed timers run, its DOM quiet (``fresh``, a document a navigation opened: since its last mutation,
        as after a navigation; else as after an action: a frame drawn with no mutation), up to
        ``settle_cap_ms``."""
        tr = self.tracker(page)
        t0 = time.monotonic()
        dom = await self._mark_frames(page, fresh=fresh)
        mark = PageMark(
            page.url, tr.started_total, tr.main_navigations, dom, t0, frozenset(page.context.pages)
        )
        return await self.settle(page, mark, "wait")

    def cap_ms(self, action: str) -> int:
        return self.config.per_action.get(action, self.config.settle_cap_ms)

    async def _watch_new_documents(self, page: Page) -> None:
        """Give every document ``page`` opens from now on the observer at its start (once). A page Kite has
        not acted on yet (a popup) has its first document settled by the network-quiet window."""
        if page in _watched or self.config.navigation_settle != "observer":
            return
        _watched.add(page)
        try:
            cfg = self.config
            await page.add_init_script(
                init_js(
                    FOLLOW_TIMER_MS,
                    cfg.dom_quiet_ms * QUIET_STRETCH,
                    cfg.network_stall_ms,
                    cfg.network_quiet_ms,
                )
            )
        except PlaywrightError:
            _watched.discard(page)

    async def _mark_frames(
        self,
        page: Page,
        fresh: bool = False,
        *,
        first: FirstCall | None = None,
        answers: _MarkAnswers | None = None,
        cap_ms: int = 0,
        effect_only: bool = False,
        follow: int = FOLLOW_TIMER_MS,
    ) -> DomMarks:
        """Install the observer in every frame (in parallel) and take each one's mark. ``fresh``: the frames
        hold a document a navigation just opened (the mark keeps what its observer saw while it loaded).
        ``first``: a call made in the top frame's mark call, after the mark; its answer goes to
        ``answers["first"]`` (and its in-page wait's, capped at ``cap_ms``, to ``answers["quiet"]``; held
        only by the requests begun since the mark when ``effect_only``). ``follow``: the longest timer the action
        sets that is waited for (``follow_ms``)."""
        frames = [f for f in page.frames if not f.is_detached()]
        cfg = self.config
        args = [follow, cfg.dom_quiet_ms * QUIET_STRETCH, fresh, cfg.network_stall_ms]
        top = page.main_frame

        async def one(frame: Frame) -> JsonObject | None:
            timeout = MARK_TIMEOUT_S
            if first is not None and frame is top:
                quiet_args = self._quiet_args(cap_ms, "since_mark" if effect_only else "all")
                call = frame.evaluate(
                    mark_then(first.js, first.settles, first.after_js), [args, first.arg, quiet_args]
                )
                timeout += cap_ms / 1000 if first.settles else 0.0
            else:
                call = frame.evaluate(INSTALL_JS, args)
            try:
                res = await asyncio.wait_for(call, timeout)
            except (PlaywrightError, TimeoutError):
                return None
            if not isinstance(res, dict):
                return None
            if answers is not None:
                if "first" in res:
                    answers["first"] = res.pop("first")
                if "quiet" in res:
                    answers["quiet"] = res.pop("quiet")
            return {**res, "fresh": fresh}

        results = await asyncio.gather(*(one(f) for f in frames))
        return {f: r for f, r in zip(frames, results, strict=True) if r is not None}

    async def settle(
        self,
        page: Page,
        mark: PageMark,
        action: str,
        cap_ms: int | None = None,
        *,
        after_js: str | None = None,
        effect_only: bool = False,
    ) -> SettleReport:
        """Wait until the page is done reacting to the action marked by ``mark``. ``after_js``: a function
        expression of no arguments run in the top frame in the same call as the wait's end (``rep.after``:
        its answer), so what the caller reads after the settle costs no round trip of its own.

        ``effect_only``: wait for what the action itself set off, not for the page's own loading (a workflow's
        replay, which looks for its next target itself and waits for the loading with ``quiet`` only when
        that target is not there as recorded): the requests started since the mark are awaited until
        answered, with no ``network_quiet_ms`` idle window after them; after a navigation the new document's
        requests are not awaited (its DOM quiet, its followed timers and its load event are)."""
        cap = (cap_ms if cap_ms is not None else self.cap_ms(action)) / 1000
        t_start = time.monotonic()
        deadline = t_start + cap
        tr = self.tracker(page)
        rep = SettleReport()

        def left() -> float:
            return max(0.0, deadline - time.monotonic())

        dom_marks, navs, requests = mark.dom, mark.main_navigations, mark.started_total
        observed = False  # the top document is a new one, watched from its start
        popup_seen = False
        since = mark.t0 if effect_only else None  # the requests that count: since the mark, or all
        for round_ in range(MAX_ROUNDS):
            if page.is_closed() or left() <= 0:
                break
            # 1. A navigation the action started: wait for the document response to commit, then the loads.
            if tr.main_document_pending() or tr.main_navigations != navs:
                new_document = await self._new_document(page, tr, navs, left, rep)
                if new_document is not None:
                    dom_marks, observed = new_document
                navs = tr.main_navigations
            loading = effect_only and rep.navigated  # a new document's requests: the page's own loading
            # 2. Network quiet, when the action (or what it set off) started requests.
            if tr.started_total != requests and not loading:
                rep.network_requests = tr.started_total - mark.started_total
                rep.steps.append("network")
                await self._network_quiet(tr, left, observed, since)
            requests, documents = tr.started_total, tr.documents_total
            # 3. DOM quiet in every frame (also waits for the action's short timers).
            nav_announced = await self._dom_quiet(
                page,
                dom_marks,
                left(),
                rep,
                after_js,
                _premade(page, mark, rep, tr) if round_ == 0 else None,
                requests="none" if loading else "since_mark" if effect_only else "all",
            )
            if page.is_closed() or left() <= 0:
                break
            if rep.opened and not popup_seen:
                popup_seen = True
                rep.steps.append("window_opened")
                await self._first_document(page, mark.pages, left)
            if nav_announced:
                rep.steps.append("navigation_announced")
                await self._await_navigation_start(tr, navs, left)
                dom_marks, observed = {}, False
                continue
            if self._over(tr, navs, (requests, documents), observed, since, loading):
                break
            dom_marks = await self._mark_frames(page, fresh=observed)
        if not page.is_closed() and not rep.focus_known:  # a new document: give it an observer now
            await self._mark_frames(page)
        rep.timed_out = left() <= 0
        rep.waited_ms = (time.monotonic() - t_start) * 1000 + rep.waited_ms_before
        return rep

    async def _new_document(
        self, page: Page, tr: RequestTracker, navs: int, left: Callable[[], float], rep: SettleReport
    ) -> tuple[DomMarks, bool] | None:
        """Follow the navigation the action started (``_follow_navigation``); the new document's marks and
        whether its observer dates from its start, or None when no navigation committed."""
        load = await self._follow_navigation(page, tr, navs, left)
        if load is None:
            return None
        rep.navigated = True
        rep.steps.append("navigation")
        if load != "load":
            rep.steps.append(f"load_{load}")  # load_stalled, load_cap
        # A new document: all of it is the action's doing; its observer dates from its start when the init
        # script ran there.
        if self.config.navigation_settle != "observer":
            return {}, False  # "window": the network-quiet window stands in for the page's own say
        dom_marks = await self._mark_frames(page, fresh=True)
        top = dom_marks.get(page.main_frame)
        return dom_marks, bool(top and top.get("fromStart"))

    def _over(
        self,
        tr: RequestTracker,
        navs: int,
        counts: tuple[int, int],
        observed: bool,
        since: float | None,
        loading: bool,
    ) -> bool:
        """The settle's round ends it: no navigation on its way and, unless the new document's requests are
        its own loading (``loading``), no request started since the round's in-page wait began (``counts``:
        the requests and top-frame documents started by then) nor in flight. Effect-only (``since``): a
        request begun during the in-page wait and answered by now was followed there (a fetch/XHR of the
        page's) or is over (a script, a frame's document); a top-frame document's (a form's POST answered
        by a redirect) is a navigation on its way."""
        if tr.main_navigations != navs or tr.main_document_pending():
            return False
        if loading:
            return True
        requests, documents = counts
        new = tr.started_total != requests and (since is None or tr.documents_total != documents)
        return not new and not tr.busy(self.config.network_stall_ms / 1000, observed, since)

    async def _follow_navigation(
        self, page: Page, tr: RequestTracker, navs: int, left: Callable[[], float]
    ) -> str | None:
        """None when no navigation committed; else how the wait for its load event ended: ``load``,
        ``stalled`` (all that is still loading has been for ``network_stall_ms``) or ``cap``."""
        while tr.main_document_pending() and left() > 0 and not page.is_closed():
            await tr.wait_change(min(left(), 0.1))
        if tr.main_navigations == navs or page.is_closed():
            return None
        await self._load_state(page, "domcontentloaded", left())
        return await self._load_event(page, tr, min(left(), self.config.navigation_load_cap_ms / 1000))

    async def _load_event(self, page: Page, tr: RequestTracker, timeout_s: float) -> str:
        """Wait for the load event, up to ``timeout_s``; stop early when what holds it up has stalled."""
        stall = self.config.network_stall_ms / 1000
        loaded = asyncio.ensure_future(self._load_state(page, "load", timeout_s))
        try:
            while not loaded.done():
                if tr.only_stalled(stall):
                    return "stalled"
                await asyncio.wait({loaded}, timeout=0.05)
        finally:
            if not loaded.done():
                loaded.cancel()
                await asyncio.wait({loaded})
        return "load" if loaded.result() else "cap"

    @staticmethod
    async def _first_document(page: Page, before: frozenset[Page], left: Callable[[], float]) -> None:
        """The page opened a window: wait (up to ``NAV_START_S``) for it to show up and for its first document
        to be answered or refused (the domain policy's refusal is then on record for the action's result)."""
        end = time.monotonic() + min(left(), NAV_START_S)
        try:
            new = [p for p in page.context.pages if p not in before]
            if not new:
                new = [
                    await page.context.wait_for_event(
                        "page", timeout=max(1.0, (end - time.monotonic()) * 1000)
                    )
                ]
            for popup in new:
                rest = end - time.monotonic()
                if rest > 0 and not popup.is_closed():
                    await popup.wait_for_load_state("domcontentloaded", timeout=rest * 1000)
        except (
            PlaywrightError
        ):  # not within the time (a window that never loads): the action's report goes on
            pass

    @staticmethod
    async def _await_navigation_start(tr: RequestTracker, navs: int, left: Callable[[], float]) -> None:
        """The page announced a navigation: wait for it to commit (or for its request to end without one)."""
        give_up = time.monotonic() + NAV_START_S
        seen_request = False
        while left() > 0 and tr.main_navigations == navs:
            if tr.main_document_pending():
                seen_request = True
            elif seen_request or time.monotonic() > give_up:
                return  # a download, a 204, or a navigation the page cancelled
            await tr.wait_change(min(left(), 0.05))

    async def _network_quiet(
        self,
        tr: RequestTracker,
        left: Callable[[], float],
        observed: bool = False,
        since: float | None = None,
    ) -> None:
        """No tracked request in flight (stalled ones aside), then ``network_quiet_ms`` without one starting
        or ending. ``observed`` (a new document watched from its start): no idle window; the in-page wait
        that follows covers what could still start a request, and one that starts begins another round.
        ``since`` (an effect-only settle): only the requests started since then, and no idle window."""
        stall = self.config.network_stall_ms / 1000
        quiet = 0.0 if observed or since is not None else self.config.network_quiet_ms / 1000
        while left() > 0:
            if tr.busy(stall, observed, since):
                await tr.wait_change(min(left(), 0.1))
                continue
            idle = time.monotonic() - tr.last_activity
            if idle >= quiet:
                return
            await tr.wait_change(min(quiet - idle, left()))

    def _quiet_args(self, cap_ms: int, requests: HeldBy = "all") -> list[int]:
        """``QUIET_JS``'s arguments after the mark; ``requests``: the page's fetches and XHRs that hold the
        wait: ``all``, ``since_mark`` (begun since the mark) or ``none`` (a stall limit of 0)."""
        cfg = self.config
        stall = cfg.network_stall_ms if requests != "none" else 0
        since = int(requests == "since_mark")
        return [cfg.dom_quiet_ms, cfg.dom_quiet_ms * QUIET_STRETCH, GRACE_MS, cap_ms, stall, since]

    async def _dom_quiet(
        self,
        page: Page,
        marks: DomMarks,
        left_s: float,
        rep: SettleReport,
        after_js: str | None = None,
        done: QuietAnswer | None = None,
        *,
        requests: HeldBy = "all",
    ) -> bool:
        """Wait for DOM quiet in every marked frame; add what changed to ``rep``. True if a navigation began.
        ``done``: the top frame's wait, already made (in the action's mark call); ``requests``: see
        ``_quiet_args``."""
        args_base = self._quiet_args(max(0, int(left_s * 1000)), requests)
        rep.after = None
        live = {f: m for f, m in marks.items() if not f.is_detached()}
        if not live:
            rep.state_changed = True  # nothing to compare with: never claim that nothing changed
            return False
        top = page.main_frame

        async def one(frame: Frame, mark: JsonObject) -> QuietAnswer | None:
            if done is not None and frame is top:
                return done
            js = quiet_then(after_js) if after_js is not None and frame is top else QUIET_JS
            try:
                return await asyncio.wait_for(frame.evaluate(js, [mark, *args_base]), left_s + 0.5)
            except (PlaywrightError, TimeoutError):
                return None

        frames = list(live)
        results = await asyncio.gather(*(one(f, live[f]) for f in frames))
        nav = False
        for frame, res in zip(frames, results, strict=True):
            if res is None:
                nav = nav or (frame is top and not page.is_closed() and top.url != "about:blank")
                continue
            if not live[frame].get("fresh"):  # a new document's elements are not "added" by the action
                rep.added += res["added"]
                rep.removed += res["removed"]
                rep.dom_changed += res["changed"]
            rep.state_changed = rep.state_changed or bool(res.get("stateChanged", True))
            rep.opened += int(res.get("opened") or 0)
            if frame is top:
                rep.focused, rep.focus_known = res.get("focused"), True
                rep.after = res.get("after")
                nav = nav or bool(res.get("nav"))
        return nav

    @staticmethod
    async def _load_state(page: Page, state: str, timeout_s: float) -> bool:
        """Whether ``page`` reached ``state`` within ``timeout_s``."""
        if timeout_s <= 0:
            return False
        try:
            await page.wait_for_load_state(state, timeout=timeout_s * 1000)  # type: ignore[arg-type]
        except PlaywrightError:
            return False
        return True


def _premade(page: Page, mark: PageMark, rep: SettleReport, tr: RequestTracker) -> QuietAnswer | None:
    """The top frame's wait made in the action's mark call (``FirstCall.settles``), standing for the first
    round's when nothing that wait does not see happened meanwhile (a request, a navigation); else None (the
    round waits again)."""
    done = mark.quiet
    if done is None or page.main_frame not in mark.dom:
        return None
    if rep.navigated or rep.network_requests or tr.main_document_pending():
        return None
    rep.waited_ms_before = float(done.get("ms") or 0.0)
    return done
