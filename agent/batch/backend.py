"""Where jobs run. A backend executes one job at a time per slot and turns every failure of a task into a
failed ``TaskResult``; the ``BatchRunner`` (agent/batch/runner.py) decides what runs, keeps the results file
and reports progress, whatever the backend.

``LocalBackend`` (agent/batch/local.py): one Chromium in this process, one context per task. A cluster backend
(Ray) implements the same four members.
"""

from __future__ import annotations

from typing import Protocol

from kite_browser.agent.batch.jobs import Job
from kite_browser.agent.batch.results import TaskResult


class Backend(Protocol):
    slots: int
    """How many jobs may run at once (the runner never asks for more)."""

    async def start(self) -> None: ...

    async def run(self, job: Job) -> TaskResult:
        """Run one job to its result. A task's failure is a failed result, never an exception; cancelling
        the call (Ctrl-C) stops the task and returns nothing."""
        ...

    async def close(self) -> None: ...
