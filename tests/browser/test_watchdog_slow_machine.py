"""The hang watchdog tells a slow machine from a stuck page (agent/browser/watchdog.py): with every Chromium
process paused (SIGSTOP: a CPU starved for all of them, not one page's script), the tab that does not answer
is kept and the call waited for; a page whose script never yields is still closed (test_env_stuck_tab.py)."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from kite_browser.agent.browser.procs import chromium_descendants
from kite_browser.agent.browser.session import ContextSession
from kite_browser.agent.browser.watchdog import BrowserTimeoutError, guard
from tests.fixtures.browser import PagesServer

pytestmark = [pytest.mark.timeout(120)]


@contextmanager
def paused_chromium(seconds: float) -> Iterator[None]:
    """Every Chromium process of this test process stopped, and continued ``seconds`` later (or at the end)."""
    procs = chromium_descendants(os.getpid())
    assert procs, "no Chromium process to pause"
    for p in procs:
        os.kill(p.pid, signal.SIGSTOP)

    def go_on() -> None:
        for p in procs:
            try:
                os.kill(p.pid, signal.SIGCONT)
            except ProcessLookupError:
                pass

    handle = asyncio.get_running_loop().call_later(seconds, go_on)
    try:
        yield
    finally:
        handle.cancel()
        go_on()


async def test_a_browser_paused_as_a_whole_is_a_slow_machine_and_the_tab_is_kept(
    ctx_session: ContextSession, pages_server: PagesServer
) -> None:
    url = pages_server.add("/slow/plain.html", "<title>Plain</title><p>nothing runs here</p>")
    await ctx_session.page.goto(url)
    page = ctx_session.page
    with paused_chromium(3.5):
        got = await guard(
            ctx_session, page.evaluate("1 + 1"), what="the observation", deadline_s=30, hang_s=1.0
        )
    assert got == 2 and not page.is_closed() and ctx_session.page is page


async def test_a_deadline_passed_on_a_slow_machine_says_so_instead_of_blaming_the_page(
    ctx_session: ContextSession, pages_server: PagesServer
) -> None:
    url = pages_server.add("/slow/plain2.html", "<title>Plain</title><p>nothing runs here</p>")
    await ctx_session.page.goto(url)
    page = ctx_session.page
    with paused_chromium(8), pytest.raises(BrowserTimeoutError) as caught:
        await guard(ctx_session, page.evaluate("1 + 1"), what="the observation", deadline_s=4, hang_s=1.0)
    message = caught.value.message
    assert "machine was too slow" in message and "the browser itself did not answer" in message
    assert "Avoid that page" not in message and caught.value.context.get("slow_machine") is True
    assert not page.is_closed()
