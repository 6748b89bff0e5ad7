"""Deadlines for browser calls, and a renderer that stopped answering detected and its tab discarded.

A page running ``while (true) {}`` never answers again: every ``evaluate`` on it waits forever (Playwright
gives them no timeout), so without a limit one such page would hang a whole run. ``guard(session, call, ...)`` runs a
browser call (an observation, one action with its settle) under two limits:

* a **deadline** (``browser.step_timeout_ms``): past it the call is abandoned with ``browser_timeout``;
* a **responsiveness probe**: while the call runs longer than ``PROBE_AFTER_S``, the active tab is asked to
  evaluate ``0``; when it does not answer within ``browser.hang_timeout_ms`` its renderer is stuck, so the
  call is abandoned, the tab is closed (the browser kills its renderer; a blank tab replaces the last one)
  and ``PageUnresponsiveError`` says so, for the model to read. A tab that cannot even be closed makes the
  context unusable (``BrowserCrashedError``), so the run ends with a result instead of hanging.

A tab that does not answer is a stuck page only when the rest answers on time: while the tab is probed, the
browser process is asked a question of its own (the context's cookies: no renderer involved) and Kite's own
event loop is timed. When the browser does not answer either, or Kite's own timers ran late, the whole
machine was slow (the CPU starved, the process paused): the tab is kept and the call waited for until the
deadline, whose error then says the machine was slow rather than blaming the page.

Time spent waiting on the user (a confirmation asked while a page dialog is open: ``awaiting_user`` on the
session) counts towards neither limit.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from typing import Protocol, TypeVar

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from kite_browser.agent.base.cancel import raise_if_cancelled
from kite_browser.agent.base.errors import BrowserCrashedError, BrowserError, KiteError

T = TypeVar("T")


class Watched(Protocol):
    """The browser session a guarded call runs on (``ContextSession``): its active tab, and a new one."""

    @property
    def page(self) -> Page: ...

    async def open_tab(self) -> object: ...


PROBE_AFTER_S = 1.0
"""A call that returns sooner is never probed (most calls: no overhead)."""
PROBE_EVERY_S = 1.0
CLOSE_TIMEOUT_S = 10.0
TICK_S = 0.1
"""The event loop's heartbeat while a tab is probed."""
LATE_S = 1.0
"""Kite's own timers late by this much during a probe: the machine, not the page, is slow."""


class PageUnresponsiveError(BrowserError):
    """The active tab's renderer stopped answering (a script that never yields); the tab was closed."""

    type = "page_unresponsive"


class BrowserTimeoutError(BrowserError):
    """A browser call did not finish within ``browser.step_timeout_ms``; it was abandoned."""

    type = "browser_timeout"


async def probe(page: Page, timeout_s: float) -> bool:
    """False when ``page``'s renderer does not answer a trivial evaluate within ``timeout_s``."""
    try:
        await asyncio.wait_for(page.evaluate("0"), timeout_s)
    except TimeoutError:
        return False
    except PlaywrightError:
        return True  # closed, navigating, crashed: not a hang (the call itself reports those)
    return True


async def _late_by(stop: asyncio.Event) -> float:
    """How late Kite's own timers ran (at worst) until ``stop`` is set: a starved process is late."""
    worst = 0.0
    while not stop.is_set():
        t0 = time.monotonic()
        await asyncio.sleep(TICK_S)
        worst = max(worst, time.monotonic() - t0 - TICK_S)
    return worst


async def _browser_answers(page: Page, timeout_s: float) -> bool:
    """The browser process (not the tab's renderer) answers within ``timeout_s``."""
    try:
        await asyncio.wait_for(page.context.cookies(), timeout_s)
    except TimeoutError:
        return False
    except PlaywrightError:
        return True
    return True


async def probe_page(page: Page, timeout_s: float) -> tuple[bool, str | None]:
    """(the tab answered, why the machine looks slow or None): a tab that does not answer while the browser
    process answers and Kite's timers keep time is stuck; else the machine is slow."""
    stop = asyncio.Event()
    lag = asyncio.ensure_future(_late_by(stop))
    try:
        tab, browser = await asyncio.gather(probe(page, timeout_s), _browser_answers(page, timeout_s))
    finally:
        stop.set()
    late = await lag
    if tab:
        return True, None
    if not browser:
        return False, f"the browser itself did not answer within {timeout_s:.0f}s"
    if late >= LATE_S:
        return False, f"Kite's own timers ran {late:.1f}s late"
    return False, None


def _active_page(session: Watched) -> Page | None:
    try:
        page = session.page
    except KiteError:
        return None
    return page if isinstance(page, Page) and not page.is_closed() else None


async def _cancel(task: asyncio.Task[object]) -> None:
    """Cancel an abandoned call and give it a second to end. Its own outcome is dropped; a cancel of the
    caller's own (Ctrl-C arriving meanwhile) is not: it propagates."""
    task.cancel()
    await asyncio.wait({task}, timeout=1.0)
    if task.done() and not task.cancelled():
        task.exception()  # retrieved: an abandoned call's failure is nobody's error


async def discard_tab(session: Watched, page: Page) -> str:
    """Close a tab whose renderer is stuck; the sentence says what the model now looks at."""
    url = page.url
    try:
        await asyncio.wait_for(page.close(run_before_unload=False), CLOSE_TIMEOUT_S)
    except (TimeoutError, PlaywrightError) as exc:
        mark_dead = getattr(session, "_mark_dead", None)
        if mark_dead is not None:
            mark_dead(f"the tab {url} stopped responding and could not be closed")
        raise BrowserCrashedError(
            f"the tab {url} stopped responding and could not be closed; restart the browser", url=url
        ) from exc
    handler = getattr(session, "_on_page_close", None)
    if handler is not None:
        handler(page)  # the close event may arrive later; the session must forget the tab now
    now = _active_page(session)
    if now is None:
        await session.open_tab()
        return "Kite closed that tab and opened a blank one"
    return f"Kite closed that tab; the active tab is now {now.url}"


async def guard(session: Watched, call: Awaitable[T], *, what: str, deadline_s: float, hang_s: float) -> T:
    """Run ``call`` (a coroutine on ``session``'s active tab) under a deadline and a hang probe."""
    raise_if_cancelled(call)  # no browser call for a caller whose cancel was lost on the way
    task: asyncio.Task[T] = asyncio.ensure_future(call)
    started = time.monotonic()
    waited_on_user = 0.0
    slow: str | None = None  # why the machine looked slow at the last probe
    try:
        done, _ = await asyncio.wait({task}, timeout=min(PROBE_AFTER_S, deadline_s))
        while not done:
            if getattr(session, "awaiting_user", False):  # a person is answering: no limit applies
                t0 = time.monotonic()
                done, _ = await asyncio.wait({task}, timeout=PROBE_EVERY_S)
                waited_on_user += time.monotonic() - t0
                continue
            left = deadline_s - (time.monotonic() - started - waited_on_user)
            if left <= 0:
                raise _timeout(what, deadline_s, slow)
            page = _active_page(session)
            if page is not None:
                checking = asyncio.ensure_future(probe_page(page, min(hang_s, left)))
                pending: set[asyncio.Task[object]] = {task, checking}
                finished, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                if task in finished:
                    await _cancel(checking)
                    break
                answered, slow = await checking
                if not answered and slow is None and not getattr(session, "awaiting_user", False):
                    await _unresponsive(session, page, task, what, hang_s)
            done, _ = await asyncio.wait({task}, timeout=min(PROBE_EVERY_S, max(left, 0.01)))
        return task.result()
    finally:
        if not task.done():
            await _cancel(task)


def _timeout(what: str, deadline_s: float, slow: str | None) -> BrowserTimeoutError:
    if slow is None:
        return BrowserTimeoutError(
            f"{what} did not finish within {deadline_s:.0f}s (browser.step_timeout_ms); abandoned",
            seconds=round(deadline_s, 1),
        )
    return BrowserTimeoutError(
        f"{what} did not finish within {deadline_s:.0f}s (browser.step_timeout_ms) because the machine was "
        f"too slow ({slow}), not because of the page: try again when the machine is less busy",
        seconds=round(deadline_s, 1),
        slow_machine=True,
    )


async def _unresponsive(
    session: Watched, page: Page, task: asyncio.Task[object], what: str, hang_s: float
) -> None:
    if task.done():
        return
    await _cancel(task)
    url = page.url
    now = await discard_tab(session, page)
    raise PageUnresponsiveError(
        f"the page {url} stopped responding during {what} (its script ran for more than {hang_s:.0f}s "
        f"without yielding); {now}. Avoid that page, or try another way to reach the goal.",
        url=url,
    )
