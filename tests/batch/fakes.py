"""``kite/steps``: a fake model for batch tests that needs no element indexes, driven by markers in the task.

Each call waits ``latency_s`` (so tasks overlap when run concurrently), reads the step number and the task
from its prompt, and answers with one tool call:

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

import litellm

from agent.llm.fakes import FakeReply, register_fake

STEP = re.compile(r"Step (\d+) of at most")


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content or ""


class StepsModel:
    def __init__(
        self, latency_s: float = 0.0, rendezvous: int = 0, rendezvous_timeout_s: float = 60.0
    ) -> None:
        self.latency_s = latency_s
        self.rendezvous, self.rendezvous_timeout_s = rendezvous, rendezvous_timeout_s
        self._met = asyncio.Event()
        self.calls = 0
        self.in_flight = 0
        self.max_in_flight = 0
        """Most calls waiting at the same time: how many tasks really overlapped."""

    async def __call__(self, messages: list[dict], tools: list[dict] | None, kwargs: dict) -> FakeReply:
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
        user = _text(messages[-1])
        task = user.split("# The task\n", 1)[1].split("\n", 1)[0] if "# The task\n" in user else ""
        system = task  # the markers live in the task, which opens the user message
        step_match = STEP.search(user)
        step = int(step_match.group(1)) if step_match else 1
        if "[model-error]" in system:
            raise litellm.BadRequestError("injected: this model refuses", "kite/steps", "kite")
        n = int(m.group(1)) if (m := re.search(r"\[steps=(\d+)\]", system)) else 2
        if step < n:
            if "[js]" in system:
                return FakeReply(
                    tool_calls=[{"name": "executeJS", "arguments": {"code": "document.title = 'js ran'"}}]
                )
            return FakeReply(tool_calls=[{"name": "scroll", "arguments": {"direction": "down"}}])
        answer = f"finished {task.split(' ', 1)[0]}"
        success = "[claim=false]" not in system
        return FakeReply(tool_calls=[{"name": "done", "arguments": {"success": success, "answer": answer}}])


def register_steps(latency_s: float = 0.0, name: str = "steps", rendezvous: int = 0) -> StepsModel:
    model = StepsModel(latency_s, rendezvous)
    register_fake(name, model)
    return model
