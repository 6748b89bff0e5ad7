"""``kite/holder``: a fake model that holds two tasks in flight and makes one of them lose the Ctrl-C cancel.

This is how an interrupted task used to be recorded as failed (``context_closed``): Ctrl-C cancels every task,
one task's pending call *loses* the cancel and carries on, the others end, the runner closes the browser, and
the survivor fails on the closed context and its failure was written to the results. CPython 3.11's
``asyncio.wait_for`` loses a cancel whenever the awaited call completes in the same loop iteration as the cancel
(it returns the result instead of raising); a model reply or a browser answer arriving together with Ctrl-C is
enough. The holder makes that happen every time:

* ``[release]`` in the task: step 1's call holds until it is cancelled, and then (cancelled) hands a reply to
  the ``[lose]`` task's pending call, in the same loop iteration in which that task is being cancelled (both
  tasks are cancelled in one sweep, the ``[release]`` one first: put it first in the task file);
* ``[lose]`` in the task: step 1's call waits for that reply with ``asyncio.wait_for`` and so gets it instead of
  the cancel. (On Python >= 3.12 ``wait_for`` keeps the cancel; the holder then drops it itself, as a library
  may.) From then on the task is a survivor: every call answers ``AFTER_CANCEL`` (``after_cancel`` counts
  the calls after the lost one).

Each holding call first prints ``MARK <task>`` on stderr (and sets ``holding[marker]``), so a test signals
only once the tasks are provably in flight. Holding is on when ``KITE_TEST_HOLD`` is set (or ``hold=True``); otherwise,
and for other tasks, the holder scrolls twice and then calls ``done``.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

from kite_browser.agent.llm.model import ModelView
from kite_browser.agent.llm.own_models import register_model
from kite_browser.agent.llm.testing import FunctionModel, Reply

RELEASE, LOSE = "[release]", "[lose]"
HOLD_ENV = "KITE_TEST_HOLD"
MARK = "kite-test: holding"
SCROLL = {"name": "scroll", "arguments": {"direction": "down"}}
AFTER_CANCEL = {"name": "executeJS", "arguments": {"code": "document.title = 'after the cancel'"}}
"""The reply a task gets after it lost its cancel: a confirm-level action (the batch policy declines it), so
a run that goes on after the cancel shows even when its browser is already gone."""
HOLD_S = 120.0
"""Longest hold (a test that never signals fails instead of hanging)."""


class Holder(FunctionModel):
    def __init__(self, *, hold: bool | None = None, name: str = "kite/holder") -> None:
        super().__init__(self._answer, name=name)
        self.hold = bool(os.environ.get(HOLD_ENV)) if hold is None else hold
        self.holding = {RELEASE: asyncio.Event(), LOSE: asyncio.Event()}
        """Set once a task with that marker is held (in-process tests wait on it)."""
        self.after_cancel = 0
        """Calls answered for a task after it lost its cancel (it should have stopped)."""
        self._reply: asyncio.Future[Reply] | None = None
        self._lost = False

    @property
    def reply(self) -> asyncio.Future[Reply]:
        """What the ``[lose]`` task's held call waits for (made in the running loop)."""
        if self._reply is None:
            self._reply = asyncio.get_running_loop().create_future()
        return self._reply

    def release(self) -> None:
        """Hand the ``[lose]`` task its reply (a test calls this right before cancelling the runner)."""
        if not self.reply.done():
            self.reply.set_result(AFTER_CANCEL)

    async def _answer(self, messages: list[dict[str, Any]], view: ModelView) -> Reply:
        if LOSE in view.task and self._lost:
            self.after_cancel += 1
            return AFTER_CANCEL
        if self.hold and view.step == 1 and RELEASE in view.task:
            self._holding(view.task, RELEASE)
            try:
                await asyncio.sleep(HOLD_S)
            except asyncio.CancelledError:
                self.release()
                raise
            raise AssertionError(f"{view.task}: held {HOLD_S:.0f}s and never cancelled")
        if self.hold and view.step == 1 and LOSE in view.task:
            reply = self.reply
            self._holding(view.task, LOSE)
            try:
                answer = await asyncio.wait_for(reply, HOLD_S)  # 3.11: the reply wins over the cancel
            except asyncio.CancelledError:  # 3.12+: wait_for keeps it; lose it here instead
                answer = AFTER_CANCEL
            self._lost = True
            return answer
        if view.step < 3:
            return SCROLL
        return {"name": "done", "arguments": {"success": True, "answer": f"finished {view.task.split()[0]}"}}

    def _holding(self, task: str, role: str) -> None:
        print(f"{MARK} {task}", file=sys.stderr, flush=True)
        self.holding[role].set()


def register_holder(*, hold: bool | None = None) -> Holder:
    model = Holder(hold=hold)
    register_model(model.name, model)
    return model
