"""The watchdog and a cancelled caller (Ctrl-C): a cancel that arrives while the watchdog waits for an abandoned
call to end propagates (it is not swallowed with that call's outcome), and a caller whose cancel was lost on
the way (agent/base/cancel.py) starts no browser call. A swallowed cancel let an interrupted batch task carry on
(tests/batch/test_cancel.py)."""

from __future__ import annotations

import asyncio

import pytest

from kite_browser.agent.browser import watchdog


async def test_abandoning_a_call_keeps_a_cancel_of_the_callers_own() -> None:
    started, winding_down, ended = asyncio.Event(), asyncio.Event(), asyncio.Event()

    async def slow_to_end() -> None:  # a browser call that takes a moment to wind down once cancelled
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            winding_down.set()
            await ended.wait()
            raise

    call = asyncio.ensure_future(slow_to_end())
    await started.wait()
    caller = asyncio.ensure_future(watchdog._cancel(call))
    await winding_down.wait()  # the caller is now waiting for the abandoned call to end
    caller.cancel()  # Ctrl-C
    ended.set()
    with pytest.raises(asyncio.CancelledError):
        await caller
    await asyncio.wait({call})
    assert call.cancelled()


async def test_a_caller_whose_cancel_was_lost_starts_no_browser_call() -> None:
    holding, ran = asyncio.Event(), []

    async def click() -> None:
        ran.append("click")

    async def caller() -> None:
        holding.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            pass  # lost: a call that swallowed it, as CPython 3.11's wait_for can (agent/base/cancel.py)
        await watchdog.guard(object(), click(), what="a click", deadline_s=5, hang_s=5)

    task = asyncio.ensure_future(caller())
    await holding.wait()
    task.cancel()  # Ctrl-C
    with pytest.raises(asyncio.CancelledError):
        await task
    assert ran == []
