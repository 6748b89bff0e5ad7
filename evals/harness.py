"""An eval = the one task runner (agent/batch/) + a scorer + a report.

Run a suite: its tasks become jobs exactly as ``kite batch`` builds them (scored by their checks; MiniWoB
episodes by their reward), the runner runs them on a backend (one browser, one context per task, N at once),
and the results become an ``EvalReport`` (written as JSON / Markdown / HTML by ``evals/report.py``). A run cut
short (Ctrl-C, SIGTERM) still gives a report of the tasks that finished: ``partial_report``.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.batch.backend import Backend
from kite_browser.agent.batch.jobs import Job, build_jobs, register_models, safe_label
from kite_browser.agent.batch.results import TaskResult
from kite_browser.agent.batch.runner import BatchRunner
from kite_browser.agent.config import KiteConfig, with_overrides
from kite_browser.evals.miniwob import MiniwobScorer, MiniwobServer, expand
from kite_browser.evals.oracle import ORACLE, OracleModel
from kite_browser.evals.tasks import Suite, Task

if TYPE_CHECKING:
    from kite_browser.evals.sites import SitesServer

OnResult = Callable[[TaskResult], Awaitable[None] | None]


class EvalReport(BaseModel):
    suite: str
    model: str
    started_at: str
    finished_at: str = ""
    concurrency: int = 1
    repeat: int = 1
    planned: int = 0
    """Tasks (times repetitions) the eval set out to run."""
    interrupted: bool = False
    """Stopped early (Ctrl-C, SIGTERM): the report holds the tasks that finished."""
    n: int = 0
    successes: int = 0
    unverified: int = 0
    """Tasks whose claimed success the pages contradicted (``RunResult.verified`` False)."""
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
    policies_acted: dict[str, tuple[int, int]] = Field(default_factory=dict)
    """Each step policy the tasks had on, with the steps and the tasks in which it acted (``RunResult``'s
    ``policies_acted``): one at (0, 0) changed nothing in this eval, so an ablation of it would send the same
    requests."""
    tasks: list[TaskResult] = Field(default_factory=list)


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
    costs = [x.cost_usd for x in t if x.cost_usd is not None]
    steps = sum(x.steps for x in t)
    report.n, report.successes = n, sum(x.success for x in t)
    report.unverified = sum(x.verified is False for x in t)
    report.planned = max(report.planned, n)
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
    report.policies_acted = policies_acted(t)
    return report


def policies_acted(tasks: list[TaskResult]) -> dict[str, tuple[int, int]]:
    """Each policy any task had on: the steps it acted in, summed, and the tasks where it acted at all."""
    acted: dict[str, tuple[int, int]] = {}
    for task in tasks:
        for name, steps in task.policies_acted.items():
            total, where = acted.get(name, (0, 0))
            acted[name] = (total + steps, where + (steps > 0))
    return acted


class _Servers:
    """The local servers a suite needs (bundled sites, MiniWoB HTML), started on first use."""

    def __init__(self, *, marks: bool = False) -> None:
        self.sites: SitesServer | None = None
        self.miniwob: MiniwobServer | None = None
        self.marks = marks
        """Serve the sites with their hidden element markers (a bench that checks where actions land)."""

    def placeholders(self, suite_dir: str, variant: int = 0) -> dict[str, str]:
        from kite_browser.evals.sites import SitesServer

        if self.sites is None:
            self.sites = SitesServer(variant=variant, marks=self.marks).start()
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


async def suite_jobs(
    suite: Suite,
    config: KiteConfig,
    servers: _Servers,
    *,
    ids: list[str] | None = None,
    repeat: int = 1,
    max_steps: int | None = None,
    phrasing: str | None = None,
) -> list[Job]:
    """The suite's jobs, in the order of ``ids`` when given. ``max_steps`` (``--max-steps``) beats the suite's;
    ``phrasing`` (``--phrasing``) says the tasks in other words (``Suite.phrased``)."""
    if phrasing is not None:
        if suite.miniwob is not None:
            raise UsageError("--phrasing applies to task suites, not to MiniWoB")
        suite, ids = suite.phrased(phrasing, ids), None
    jobs = await _jobs(suite, config, servers, ids=ids, repeat=repeat, max_steps=max_steps)
    for job in jobs:  # the oracle is an object with the task's own plan, not a registered model
        if job.config.llm.model == ORACLE:
            job.model = OracleModel(job.task.solution if suite.miniwob is None else None)
    return jobs


async def _jobs(
    suite: Suite,
    config: KiteConfig,
    servers: _Servers,
    *,
    ids: list[str] | None,
    repeat: int,
    max_steps: int | None,
) -> list[Job]:
    prefix = f"{suite.name}-"
    if suite.miniwob is None:
        suite_dir = str(suite.folder())
        values = (
            servers.placeholders(suite_dir, suite.sites_variant)
            if suite.uses_sites()
            else {"suite_dir": suite_dir}
        )
        return await build_jobs(
            suite,
            config,
            placeholders=values,
            ids=ids,
            max_steps=max_steps,
            repeat=repeat,
            label_prefix=prefix,
        )
    spec, mw = suite.miniwob, servers.mw()
    episode_config = with_overrides(
        config, {"agent.max_steps": max_steps or spec.max_steps, "safety.approve": spec.approve}
    )
    from kite_browser.safety.secrets import SecretStore

    secrets = SecretStore.from_sources(episode_config.safety)
    jobs = [
        Job(
            i + 1,
            Task(id=e.id, task=f"MiniWoB++ {e.task_type}, seed {e.seed}", tags=["miniwob"]),
            episode_config,
            secrets,
            list(spec.approve),
            rep,
            MiniwobScorer(mw.task_url(e.task_type), e.seed, spec.data_mode, spec.episode_max_time_s),
            safe_label(f"{prefix}{e.id}-r{rep}"),
        )
        for i, e in enumerate(expand(spec, ids))
        for rep in range(repeat)
    ]
    register_models(jobs)
    return jobs


def new_report(suite: Suite, config: KiteConfig, *, concurrency: int = 1, repeat: int = 1) -> EvalReport:
    return EvalReport(
        suite=suite.name,
        model=config.llm.model or "",
        started_at=datetime.now(UTC).isoformat(),
        concurrency=concurrency,
        repeat=repeat,
    )


def finish_report(
    report: EvalReport,
    results: list[TaskResult],
    order: list[Job],
    started: float,
    *,
    interrupted: bool = False,
) -> EvalReport:
    """The report of ``results`` (in job order), however many of the planned jobs finished."""
    rank = {j.key: i for i, j in enumerate(order)}
    report.tasks = sorted(results, key=lambda r: rank.get(r.key, len(rank)))
    report.planned, report.interrupted = len(order), interrupted
    report.finished_at = datetime.now(UTC).isoformat()
    report.wall_s = round(time.monotonic() - started, 3)
    return summarize(report)


async def run_eval(
    suite: Suite,
    config: KiteConfig,
    *,
    repeat: int = 1,
    concurrency: int = 1,
    ids: list[str] | None = None,
    max_steps: int | None = None,
    on_result: OnResult | None = None,
    backend: Backend | None = None,
    on_runner: Callable[[BatchRunner], None] | None = None,
    phrasing: str | None = None,
) -> EvalReport:
    """Run every case of ``suite`` ``repeat`` times, ``concurrency`` at once (default: in one local browser).

    ``on_result`` hears of every result as it arrives (a caller keeps them to write a partial report if the
    run is cut short); ``on_runner`` is handed the runner before it starts (to ``interrupt()`` it);
    ``phrasing`` runs the tasks in other words (``terse``, ``chatty``, ``list`` or ``all`` three)."""
    from kite_browser.agent.batch.local import LocalBackend

    report = new_report(suite, config, concurrency=concurrency, repeat=repeat)
    servers = _Servers()
    started = time.monotonic()
    try:
        jobs = await suite_jobs(
            suite, config, servers, ids=ids, repeat=repeat, max_steps=max_steps, phrasing=phrasing
        )
        if backend is None:
            downloads = Path(config.run.runs_dir) / "_downloads"
            backend = LocalBackend(config.browser, concurrency=concurrency, downloads_dir=downloads)

        done: list[TaskResult] = []

        async def heard(job: Job, result: TaskResult) -> None:
            done.append(result)
            if on_result is not None:
                maybe = on_result(result)
                if maybe is not None:
                    await maybe

        runner = BatchRunner(jobs, backend, on_result=heard)
        if on_runner is not None:
            on_runner(runner)
        try:
            await runner.run()
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if not runner.interrupted or current is None:
                raise
            current.uncancel()  # interrupt() + cancel: stop, and report what finished
            return finish_report(report, done, jobs, started, interrupted=True)
    finally:
        servers.stop()
    return finish_report(report, done, jobs, started)
