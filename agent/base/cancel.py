"""A cancelled task that carried on: ``Task.cancelling()`` still counts a cancel that a call lost.

CPython 3.11's ``asyncio.wait_for`` returns the awaited call's result, instead of raising ``CancelledError``,
when the call completes in the same loop iteration as the cancel (a model reply landing together with Ctrl-C:
``agent/llm/client.py`` waits for litellm that way); a library may swallow a cancel too. The task then goes on
as if nothing happened: it acts in the browser after the user pressed Ctrl-C, and a batch reports a result for
a task that was cut short. The request is still counted on the task, so the places that must not carry on
check it: the planner after each model reply, the watchdog before each browser call, the batch runner before
it writes a result.
"""

from __future__ import annotations

import asyncio
import inspect


def cancel_requested() -> bool:
    """Whether the current task was cancelled (and nobody took the cancel back with ``uncancel()``)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def raise_if_cancelled(unstarted: object = None) -> None:
    """Raise the ``CancelledError`` a call lost, if it lost one. ``unstarted``: a coroutine that now never
    runs (closed, so that Python does not warn it was never awaited)."""
    if cancel_requested():
        if inspect.iscoroutine(unstarted):
            unstarted.close()
        raise asyncio.CancelledError("cancelled (a call it awaited had lost the cancel)")
