"""Run a suite: one browser, one context per task, N tasks at once; score each task independently of the
model's claim; return an ``EvalReport`` (written as JSON / Markdown / HTML by ``evals/report.py``).
"""

from __future__ import annotations

import asyncio
import math
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from agent.config import KiteConfig, with_overrides
from agent.llm.model import Model
from evals.checks import evaluate
from evals.miniwob import Episode, MiniwobServer, episode_result, expand, start_episode
from evals.oracle import ORACLE, OracleModel
from evals.tasks import Suite, Task


class TaskOutcome(BaseModel):
    """One task (one repetition) of an eval."""

    id: str
    repeat: int = 0
    success: bool
    score: float
    claimed_success: bool = False
    """What the agent said (done success=…); success itself comes from the check or the reward."""
    steps: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float | None = None
    wall_s: float = 0.0
    model_latency_s: float = 0.0
    overhead_s: float = 0.0
    """Kite's own time: wall time minus the model's latency."""
    stop_reason: str = ""
    message: str = ""
    answer: str = ""
    task: str = ""
    failures: list[str] = Field(default_factory=list)
    """Why the check failed (empty on success)."""
    run_dir: str | None = None
    final_url: str | None = None
    tags: list[str] = Field(default_factory=list)


class EvalReport(BaseModel):
    suite: str
    model: str
    started_at: str
    finished_at: str = ""
    concurrency: int = 1
    repeat: int = 1
    n: int = 0
    successes: int = 0
    success_rate: float = 0.0
    ci95: tuple[float, float] = (0.0, 0.0)
    """Wilson score interval of the success rate."""
    mean_score: float = 0.0
    steps_mean: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float | None = None
    wall_s: float = 0.0
    """Elapsed time of the whole eval."""
    task_wall_s: float = 0.0
    """Sum of the tasks' wall times."""
    model_latency_s: float = 0.0
    overhead_s: float = 0.0
    overhead_per_step_ms: float = 0.0
    tasks: list[TaskOutcome] = Field(default_factory=list)


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion (95% by default)."""
    if n == 0:
        return (0.0, 0.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4))


def summarize(report: EvalReport) -> EvalReport:
    t = report.tasks
    n = len(t)
    costs = [x.cost for x in t if x.cost is not None]
    steps = sum(x.steps for x in t)
    report.n, report.successes = n, sum(x.success for x in t)
    report.success_rate = round(report.successes / n, 4) if n else 0.0
    report.ci95 = wilson(report.successes, n)
    report.mean_score = round(sum(x.score for x in t) / n, 4) if n else 0.0
    report.steps_mean = round(steps / n, 2) if n else 0.0
    report.tokens_in, report.tokens_out = sum(x.tokens_in for x in t), sum(x.tokens_out for x in t)
    report.cost = round(sum(costs), 6) if costs else None
    report.task_wall_s = round(sum(x.wall_s for x in t), 3)
    report.model_latency_s = round(sum(x.model_latency_s for x in t), 3)
    report.overhead_s = round(sum(x.overhead_s for x in t), 3)
    report.overhead_per_step_ms = round(1000 * report.overhead_s / steps, 1) if steps else 0.0
    return report


@dataclass
class Case:
    id: str
    task: Task | None = None
    episode: Episode | None = None


def _label(suite: str, case_id: str, rep: int) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", f"{suite}-{case_id}-r{rep}")


class _Servers:
    """The local servers a suite needs (bundled sites, MiniWoB HTML), started on first use."""

    def __init__(self) -> None:
        self.sites: Any = None
        self.miniwob: MiniwobServer | None = None

    def placeholders(self, suite_dir: str) -> dict[str, str]:
        from evals.sites import SitesServer

        if self.sites is None:
            self.sites = SitesServer().start()
        base = self.sites.url("/").rstrip("/")
        return {"sites": base, "cross": self.sites.cross_origin_url.rstrip("/"), "suite_dir": suite_dir}

    def mw(self) -> MiniwobServer:
        if self.miniwob is None:
            self.miniwob = MiniwobServer().start()
        return self.miniwob

    def stop(self) -> None:
        if self.sites is not None:
            self.sites.stop()
        if self.miniwob is not None:
            self.miniwob.stop()


def build_cases(suite: Suite, servers: _Servers, ids: list[str] | None) -> list[Case]:
    if suite.kind == "miniwob":
        assert suite.miniwob is not None
        return [Case(e.id, episode=e) for e in expand(suite.miniwob, ids)]
    suite_dir = str(Path(suite.path).resolve().parent) if suite.path and Path(suite.path).exists() else "."
    tasks = suite.select(ids)
    uses_sites = any("{sites}" in t.model_dump_json() or "{cross}" in t.model_dump_json() for t in tasks)
    values = servers.placeholders(suite_dir) if uses_sites else {"suite_dir": suite_dir}
    return [Case(t.id, task=t.resolve(values)) for t in tasks]


OnResult = Callable[[TaskOutcome], Awaitable[None] | None]


async def run_eval(
    suite: Suite,
    config: KiteConfig,
    *,
    repeat: int = 1,
    concurrency: int = 1,
    ids: list[str] | None = None,
    on_result: OnResult | None = None,
) -> EvalReport:
    """Run every case of ``suite`` ``repeat`` times, ``concurrency`` at once, in one browser."""
    from agent.browser.session import BrowserSession

    model = config.llm.model or ""
    report = EvalReport(
        suite=suite.name,
        model=model,
        started_at=datetime.now(UTC).isoformat(),
        concurrency=concurrency,
        repeat=repeat,
    )
    servers = _Servers()
    started = time.monotonic()
    try:
        cases = build_cases(suite, servers, ids)
        runs_dir = Path(config.run.runs_dir)
        browser = BrowserSession(config.browser, downloads_dir=runs_dir / "_downloads")
        await browser.start()
        try:
            gate = asyncio.Semaphore(max(1, concurrency))
            runner = _Runner(suite, config, browser, servers, gate, on_result)
            jobs = [runner.run(case, rep) for rep in range(repeat) for case in cases]
            report.tasks = list(await asyncio.gather(*jobs))
        finally:
            await browser.close()
    finally:
        servers.stop()
    report.finished_at = datetime.now(UTC).isoformat()
    report.wall_s = round(time.monotonic() - started, 3)
    return summarize(report)


def model_for_case(case: Case, config: KiteConfig) -> Model | None:
    """The oracle (``kite/oracle``) for one case, with the case's own plan; None: the config's model."""
    if config.llm.model != ORACLE:
        return None
    return OracleModel(case.task.solution if case.task is not None else None)


class _Runner:
    def __init__(
        self,
        suite: Suite,
        config: KiteConfig,
        browser: Any,
        servers: _Servers,
        gate: asyncio.Semaphore,
        on_result: OnResult | None,
    ) -> None:
        self.suite, self.config, self.browser, self.servers = suite, config, browser, servers
        self.gate, self.on_result = gate, on_result

    def _config(self, case: Case) -> KiteConfig:
        over: dict[str, Any] = {}
        upload_dirs = list(self.config.browser.upload_dirs)
        if case.task is not None:
            t = case.task
            if self.suite.path:
                upload_dirs.append(str(Path(self.suite.path).resolve().parent))
            over.update(
                {
                    "safety.approve": t.approve,
                    "safety.secrets": {**self.config.safety.secrets, **t.secrets},
                    "safety.allowed_domains": t.allowed_domains or self.config.safety.allowed_domains,
                    "browser.upload_dirs": upload_dirs,
                }
            )
            if t.model:
                over["llm.model"] = t.model
            if t.max_steps:
                over["agent.max_steps"] = t.max_steps
        elif case.episode is not None and self.suite.miniwob is not None:
            over["agent.max_steps"] = min(self.config.agent.max_steps, self.suite.miniwob.max_steps)
            over["safety.approve"] = self.suite.miniwob.approve
        return with_overrides(self.config, over)

    async def run(self, case: Case, rep: int) -> TaskOutcome:
        async with self.gate:
            outcome = await self._run(case, rep)
        if self.on_result is not None:
            maybe = self.on_result(outcome)
            if asyncio.iscoroutine(maybe):
                await maybe
        return outcome

    async def _run(self, case: Case, rep: int) -> TaskOutcome:
        from agent.loop import Agent

        t0 = time.monotonic()
        base = TaskOutcome(
            id=case.id,
            repeat=rep,
            success=False,
            score=0.0,
            tags=case.task.tags if case.task else ["miniwob"],
        )
        if not self.browser.is_alive:
            await self.browser.restart()
        config = self._config(case)
        ctx = await self.browser.new_context(downloads_dir=Path(config.run.runs_dir) / "_downloads")
        try:
            if case.episode is not None:
                assert self.suite.miniwob is not None
                spec, mw = self.suite.miniwob, self.servers.mw()
                text = await start_episode(
                    ctx.page,
                    mw.task_url(case.episode.task_type),
                    case.episode.seed,
                    mode=spec.data_mode,
                    max_time_s=spec.episode_max_time_s,
                )
                start_url = None
            else:
                assert case.task is not None
                text, start_url = case.task.task, case.task.start_url
            agent = Agent(
                config,
                model=model_for_case(case, config),
                context=ctx,
                label=_label(self.suite.name, case.id, rep),
            )
            result = await agent.run(text, start_url=start_url)
            out = base.model_copy(
                update={
                    "task": text,
                    "claimed_success": result.success,
                    "steps": result.steps,
                    "tokens_in": result.tokens_in,
                    "tokens_out": result.tokens_out,
                    "cost": result.cost_usd,
                    "model_latency_s": result.model_latency_s,
                    "stop_reason": result.stop_reason,
                    "message": result.message,
                    "answer": result.answer,
                    "run_dir": result.run_dir,
                    "final_url": result.final_url,
                }
            )
            out = await self._score(case, out, ctx)
        except Exception as exc:  # one broken task never ends the eval
            out = base.model_copy(
                update={"stop_reason": "harness_error", "message": f"{type(exc).__name__}: {exc}"[:500]}
            )
        finally:
            try:
                await ctx.close()
            except Exception:
                pass
        out.wall_s = round(time.monotonic() - t0, 3)
        out.overhead_s = round(max(0.0, out.wall_s - out.model_latency_s), 3)
        return out

    async def _score(self, case: Case, out: TaskOutcome, ctx: Any) -> TaskOutcome:
        if case.episode is not None:
            ended, raw, reason = await episode_result(ctx.page)
            out.score, out.success = raw, ended and raw > 0
            if not out.success:
                out.failures = [f"reward {raw}" + (f" ({reason})" if reason else "")]
            return out
        assert case.task is not None
        if case.task.check is None:
            out.success, out.score = out.claimed_success, float(out.claimed_success)
            return out
        result = await evaluate(
            case.task.check, ctx, answer=out.answer, run_dir=out.run_dir, base_url=case.task.start_url
        )
        out.success, out.score, out.failures = result.passed, float(result.passed), result.failures
        return out
