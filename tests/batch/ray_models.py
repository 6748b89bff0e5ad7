"""The model every Ray worker of the tests registers (``setup=`` of ``RayBackend``): ``kite/steps``
(tests/batch/fakes.py) that, in a task marked ``[victim]``, at step 2 writes its worker's pid to
``hold_file`` (once: if the file does not exist yet) and then waits, so the test can kill that worker
mid-task; on the retry the file exists and the task runs through."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from kite_browser.agent.llm.model import ModelView
from kite_browser.agent.llm.own_models import register_model
from kite_browser.agent.llm.testing import Reply
from tests.batch.fakes import StepsModel


def _claim(path: str) -> bool:
    try:
        with Path(path).open("x", encoding="utf-8") as f:
            f.write(str(os.getpid()))
    except FileExistsError:
        return False
    return True


class VictimSteps(StepsModel):
    def __init__(self, hold_file: str, latency_s: float) -> None:
        super().__init__(latency_s)
        self.hold_file = hold_file

    async def _answer(self, messages: list[dict[str, Any]], view: ModelView) -> Reply:
        if "[victim]" in view.task and view.step == 2 and _claim(self.hold_file):
            await asyncio.sleep(300)  # killed before this ends
        return await super()._answer(messages, view)


def register_ray_models(hold_file: str = "", latency_s: float = 0.0) -> None:
    register_model("kite/steps", VictimSteps(hold_file, latency_s))
