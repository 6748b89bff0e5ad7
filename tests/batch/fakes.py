"""``kite/steps``: a fake model for batch tests that needs no element indexes, driven by markers in the task.

A ``FunctionModel``: each call waits ``latency_s`` (so tasks overlap when run concurrently), reads the step
number and the task from its view, and answers with one tool call:

* steps 1 .. n-1: ``scroll down`` (``[steps=n]`` in the task; default 2), or ``executeJS`` setting
  ``document.title = "js ran"`` when the task says ``[js]``;
* step n: ``done(success=..., answer="finished <first word of the task>")``; ``[claim=false]`` claims failure;
* ``[model-error]``: a non-retryable model error (the run stops with ``model_error``).

``rendezvous=n``: the first calls wait until ``n`` of them are waiting at once (a proof that ``n`` tasks
really run concurrently; if they never meet, the calls fail after ``rendezvous_timeout_s``).
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from kite_browser.agent.llm.errors import LLMBadRequestError
from kite_browser.agent.llm.model import ModelView
from kite_browser.agent.llm.own_models import register_model
from kite_browser.agent.llm.testing import FunctionModel, Reply


class StepsModel(FunctionModel):
    def __init__(
        self,
        latency_s: float = 0.0,
        rendezvous: int = 0,
        rendezvous_timeout_s: float = 60.0,
        name: str = "kite/steps",
    ) -> None:
        super().__init__(self._answer, name=name)
        self.latency_s = latency_s
        self.rendezvous, self.rendezvous_timeout_s = rendezvous, rendezvous_timeout_s
        self._met = asyncio.Event()
        self.calls = 0
        self.in_flight = 0
        self.max_in_flight = 0
        """Most calls waiting at the same time: how many tasks really overlapped."""

    async def _answer(self, messages: list[dict[str, Any]], view: ModelView) -> Reply:
        self.calls += 1
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.in_flight >= self.rendezvous:
                self._met.set()
            await asyncio.wait_for(self._met.wait(), self.rendezvous_timeout_s)
            if self.latency_s:
                await asyncio.sleep(self.latency_s)
        finally:
            self.in_flight -= 1
        task, step = view.task, view.step
        if "[model-error]" in task:
            raise LLMBadRequestError(f"{self.name}: injected: this model refuses", model=self.name)
        n = int(m.group(1)) if (m := re.search(r"\[steps=(\d+)\]", task)) else 2
        if step < n:
            if "[js]" in task:
                return {"name": "executeJS", "arguments": {"code": "document.title = 'js ran'"}}
            return {"name": "scroll", "arguments": {"direction": "down"}}
        answer = f"finished {task.split(' ', 1)[0]}"
        success = "[claim=false]" not in task
        return {"name": "done", "arguments": {"success": success, "answer": answer}}


def register_steps(latency_s: float = 0.0, name: str = "steps", rendezvous: int = 0) -> StepsModel:
    model = StepsModel(latency_s, rendezvous, name=f"kite/{name}")
    register_model(f"kite/{name}", model)
    return model
