"""The batch benchmarks' tasks and model (shared by ``batch_scale`` and ``batch_ray``): each task opens a
product page of the bundled shop, scrolls, goes back and finishes (4 model calls at a fixed latency)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from kite_browser.agent.batch.jobs import Job, build_jobs
from kite_browser.agent.batch.tasks import Check, Task, TaskFile
from kite_browser.agent.config import KiteConfig
from kite_browser.agent.llm.chat import ChatMessage
from kite_browser.agent.llm.client import LLMReply
from kite_browser.agent.llm.model import ModelView
from kite_browser.agent.llm.testing import FunctionModel, ScriptedModel
from kite_browser.evals.sites.catalog import PRODUCTS

MODEL = "kite/bench-batch"


class ScriptsByTask(FunctionModel):
    """A fake model holding one script per task (found by the task of the step's view), answering every
    call after ``latency_s``."""

    def __init__(self, latency_s: float) -> None:
        super().__init__(self._answer, name=MODEL)
        self.latency_s = latency_s
        self.scripts: dict[str, ScriptedModel] = {}

    def add(self, task: str, script: ScriptedModel) -> None:
        self.scripts[task] = script

    async def _answer(self, messages: list[ChatMessage], view: ModelView) -> LLMReply:
        script = self.scripts.get(view.task)
        if script is None:
            raise LookupError("no script for this task")
        await asyncio.sleep(self.latency_s)
        return await script.complete(messages, view.tools, view=view)


def make_tasks(n: int, sites: str, tag: str) -> list[Task]:
    return [
        Task(
            id=f"{tag}-{i:02d}",
            task=f"[{tag} {i}] Look at the {PRODUCTS[i % len(PRODUCTS)].name}, then return to the shop.",
            start_url=f"{sites}/shop/",
            check=Check(url="/shop/"),
            max_steps=8,
        )
        for i in range(n)
    ]


def script_for(task: Task, sites: str) -> ScriptedModel:
    product = PRODUCTS[int(task.id.rsplit("-", 1)[1]) % len(PRODUCTS)]
    return ScriptedModel(
        [
            {"name": "navigate", "arguments": {"url": f"{sites}/shop/product/{product.id}"}},
            {"name": "scroll", "arguments": {"direction": "down"}},
            {"name": "goBack", "arguments": {}},
            {"name": "done", "arguments": {"success": True, "answer": f"saw {product.name}"}},
        ],
        name=MODEL,
    )


async def _jobs(tasks: list[Task], config: KiteConfig, tmp: Path) -> list[Job]:
    tf = TaskFile(name="bench", tasks=tasks, path=str(tmp / "bench.yaml"))
    return await build_jobs(tf, config, placeholders={})
