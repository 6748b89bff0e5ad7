"""Everything Kite sends the model per step on the shop, tools included, in each prompt mode.

    python -m kite_browser.evals.bench.prompt_size [--json] [--concurrency N] [--tasks shop-search,...]

Runs the sites suite's shop tasks (``shop-*``) with the oracle, once per mode: function calling with each
tool style (``single`` browser_action tool, ``compact`` per-action tools, ``full`` per-action tools with
every parameter described) and the JSON fallback (no tools; the action catalogue is in the system prompt).
Every step's request is measured with litellm's token counter (``token_counter(model, messages, tools)``,
gpt-4o-mini's tokenizer): median, p90 and max per step, the share of the tools, and the system prompt alone.
The tools are also counted as their JSON text, the larger figure some providers come closer to. The oracle
must still solve every task in every mode (it answers through whatever tools were sent).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from kite_browser.agent.batch.local import LocalBackend
from kite_browser.agent.batch.runner import BatchRunner
from kite_browser.agent.config import KiteConfig, load_config
from kite_browser.agent.llm.chat import ChatMessage, ChatTool
from kite_browser.agent.llm.client import LLMReply
from kite_browser.agent.llm.model import Model, ModelView
from kite_browser.agent.llm.schemas import TOOL_STYLES
from kite_browser.evals.harness import _Servers, suite_jobs
from kite_browser.evals.tasks import find_suite, load_suite

COUNTER_MODEL = "gpt-4o-mini"
MODES: tuple[str, ...] = (*(f"tools:{s}" for s in TOOL_STYLES), "json")


def count(messages: list[ChatMessage] | None = None, tools: list[ChatTool] | None = None) -> int:
    """Tokens of a request as litellm counts it (the chat format's overhead included)."""
    import litellm

    sent: list[Any] | None = tools or None  # litellm types the tools as its own TypedDict
    return int(litellm.token_counter(model=COUNTER_MODEL, messages=messages or [], tools=sent))


def text_tokens(text: str) -> int:
    import litellm

    return int(litellm.token_counter(model=COUNTER_MODEL, text=text))


@dataclass
class Recording:
    """Wraps a job's model: measures each request, then lets the wrapped model answer."""

    inner: Model
    steps: list[dict[str, int]] = field(default_factory=list)
    name: str = field(init=False)

    def __post_init__(self) -> None:
        self.name = self.inner.name

    async def complete(
        self, messages: list[ChatMessage], tools: list[ChatTool] | None, *, view: ModelView | None
    ) -> LLMReply:
        total = count(messages, tools)
        self.steps.append(
            {
                "total": total,
                "tools": total - count(messages) if tools else 0,
                "tools_json_text": text_tokens(json.dumps(tools)) if tools else 0,
                "system": count(messages[:1]),
            }
        )
        return await self.inner.complete(messages, tools, view=view)


def _config(mode: str, runs_dir: str) -> KiteConfig:
    values: dict[str, object] = {
        "llm.model": "kite/oracle",
        "run.runs_dir": runs_dir,
        "run.screenshots": False,
        "browser.block_external_hosts": True,
    }
    if mode == "json":
        values["llm.function_calling"] = False
    else:
        values["llm.tools"] = mode.split(":", 1)[1]
    return load_config(overrides=values, env={})


def _stats(values: list[int]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "median": statistics.median(ordered),
        "p90": ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))],
        "max": ordered[-1],
    }


class ModeRow(TypedDict):
    """One mode's figures: tasks solved, steps, tokens per step, and what the tools and the system prompt take."""

    mode: str
    tasks: int
    solved: int
    steps: int
    per_step: dict[str, float]
    tools: int
    tools_json_text: int
    system: int


async def measure(mode: str, ids: list[str] | None, concurrency: int) -> ModeRow:
    suite = load_suite(find_suite("sites"))
    ids = ids or [t.id for t in suite.tasks if t.id.startswith("shop-")]
    servers = _Servers()
    with tempfile.TemporaryDirectory(prefix="kite-prompt-size-") as tmp:
        try:
            jobs = await suite_jobs(suite, _config(mode, tmp), servers, ids=ids)
            recordings = []
            for job in jobs:
                assert job.model is not None, "the oracle model is set by suite_jobs"
                recording = Recording(job.model)
                job.model = recording
                recordings.append(recording)
            results = []
            backend = LocalBackend(jobs[0].config.browser, concurrency=concurrency, downloads_dir=Path(tmp))
            runner = BatchRunner(jobs, backend, on_result=lambda job, result: results.append(result))
            await runner.run()
        finally:
            servers.stop()
    steps = [s for r in recordings for s in r.steps]
    return {
        "mode": mode,
        "tasks": len(jobs),
        "solved": sum(r.success for r in results),
        "steps": len(steps),
        "per_step": _stats([s["total"] for s in steps]),
        "tools": steps[0]["tools"] if steps else 0,
        "tools_json_text": steps[0]["tools_json_text"] if steps else 0,
        "system": steps[0]["system"] if steps else 0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--tasks", help="comma-separated task ids (default: every shop-* task)")
    parser.add_argument("--modes", default=",".join(MODES), help=f"comma-separated, of {', '.join(MODES)}")
    args = parser.parse_args()
    ids = [t for t in (args.tasks or "").split(",") if t] or None
    rows = [asyncio.run(measure(m, ids, args.concurrency)) for m in args.modes.split(",")]
    if args.json:
        print(json.dumps({"counter": COUNTER_MODEL, "modes": rows}, indent=2))
        return
    print(f"tokens per step on the shop (litellm token_counter, {COUNTER_MODEL}); oracle solved/tasks")
    print(f"{'mode':<15}{'median':>8}{'p90':>7}{'max':>7}{'tools':>7}{'(as JSON)':>11}{'system':>8}  solved")
    for r in rows:
        s = r["per_step"]
        print(
            f"{r['mode']:<15}{s['median']:>8.0f}{s['p90']:>7}{s['max']:>7}{r['tools']:>7}"
            f"{r['tools_json_text']:>11}{r['system']:>8}  {r['solved']}/{r['tasks']} ({r['steps']} steps)"
        )


if __name__ == "__main__":
    main()
