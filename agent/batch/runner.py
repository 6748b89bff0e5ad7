"""The batch runner: one browser, one context per task, N tasks at once, every result appended to a JSONL file
the moment it finishes.

    jobs = await build_jobs(read_task_file("tasks.yaml"), config, placeholders=...)   # evals/batch_jobs.py
    runner = BatchRunner(jobs, out="results.jsonl", concurrency=4, browser_config=config.browser)
    results = await runner.run()

Resuming: ``runner.pending`` are the jobs without a result in ``out`` yet; ``run`` only runs those. A task
interrupted by Ctrl-C (or a killed runner) writes nothing, so it runs again next time; nothing runs twice.
Safety follows the batch policy: every job gets a ``BatchConfirmer`` (never an interactive prompt). A failing
task — browser crash, model error, a bug — becomes a failed result; it never stops the others.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from agent.browser.session import BrowserSession, ContextSession
from agent.config import BrowserConfig
from agent.record import RunResult
from evals.batch_jobs import BatchJob
from evals.batch_results import BatchResult, ResultsFile, ResultWriter, read_results
from evals.checks import CheckOutcome, evaluate
from safety.confirm import BatchConfirmer

ERROR_STOPS = frozenset({"error", "model_error", "start_url_unreachable"})
"""Stop reasons that mean Kite or its surroundings failed, not the agent's work (→ ``error`` is set)."""

Hook = Callable[[BatchJob], Awaitable[None] | None]
ResultHook = Callable[[BatchJob, BatchResult], Awaitable[None] | None]


async def _call(hook: Callable[..., Any] | None, *args: Any) -> None:
    if hook is not None:
        maybe = hook(*args)
        if asyncio.iscoroutine(maybe):
            await maybe


class BatchRunner:
    def __init__(
        self,
        jobs: list[BatchJob],
        *,
        out: str | Path,
        browser_config: BrowserConfig,
        concurrency: int = 1,
        retry_failed: bool = False,
        downloads_dir: Path | None = None,
        browser: BrowserSession | None = None,
        on_start: Hook | None = None,
        on_result: ResultHook | None = None,
    ) -> None:
        self.jobs, self.out = jobs, Path(out)
        self.browser_config, self.concurrency = browser_config, max(1, concurrency)
        self.downloads_dir = downloads_dir
        self.on_start, self.on_result = on_start, on_result
        self.existing: ResultsFile = read_results(self.out)
        self.pending = [j for j in jobs if not self._finished(j.id, retry_failed)]
        self.browser = browser
        """The browser to use (started by the caller and left open), else one is launched and closed here."""
        self.active = 0
        """Tasks running right now (each with its own browser context)."""
        self._restart_lock = asyncio.Lock()

    def _finished(self, job_id: str, retry_failed: bool) -> bool:
        found = self.existing.results.get(job_id)
        return found is not None and (found.success or not retry_failed)

    async def run(self) -> list[BatchResult]:
        """Run the pending jobs; returns their results in finishing order."""
        if not self.pending:
            return []
        done: list[BatchResult] = []
        owned = self.browser is None
        if self.browser is None:
            self.browser = BrowserSession(self.browser_config, downloads_dir=self.downloads_dir)
        with ResultWriter(self.out) as writer:
            try:
                if owned:
                    await self.browser.start()
                gate = asyncio.Semaphore(self.concurrency)
                await asyncio.gather(*(self._one(job, gate, writer, done) for job in self.pending))
            finally:
                if owned:
                    await self.browser.close()
        return done

    async def _one(
        self, job: BatchJob, gate: asyncio.Semaphore, writer: ResultWriter, done: list[BatchResult]
    ) -> None:
        async with gate:
            self.active += 1
            try:
                await _call(self.on_start, job)
                result = await self._attempt(job)
            finally:
                self.active -= 1
            writer.write(result)  # before anyone hears of it: a result reported is a result kept
            done.append(result)
        await _call(self.on_result, job, result)

    async def _attempt(self, job: BatchJob) -> BatchResult:
        started = time.monotonic()
        try:
            ctx = await self._new_context(job)
        except Exception as exc:
            return _failed(job, exc, started)
        try:
            return await self._run_in(job, ctx, started)
        except Exception as exc:  # one broken task never ends the batch
            return _failed(job, exc, started)
        finally:
            with contextlib.suppress(Exception):
                await ctx.close()

    async def _new_context(self, job: BatchJob) -> ContextSession:
        assert self.browser is not None
        async with self._restart_lock:
            if not self.browser.is_alive:
                await self.browser.restart()
        return await self.browser.new_context(downloads_dir=self.downloads_dir)

    async def _run_in(self, job: BatchJob, ctx: ContextSession, started: float) -> BatchResult:
        from agent.loop import Agent

        agent = Agent(
            job.config,
            confirmer=BatchConfirmer(job.approve),
            context=ctx,
            secrets=job.secrets,
            label=job.label,
        )
        run = await agent.run(job.task.task, start_url=job.task.start_url)
        check = await self._check(job, ctx, run)
        return _from_run(job, run, check, started)

    async def _check(self, job: BatchJob, ctx: ContextSession, run: RunResult) -> CheckOutcome | None:
        if job.task.check is None:
            return None
        try:
            return await evaluate(
                job.task.check, ctx, answer=run.answer, run_dir=run.run_dir, base_url=job.task.start_url
            )
        except Exception as exc:  # a dead page cannot be checked: that is a failed check, not a crash
            return CheckOutcome(passed=False, failures=[f"the check could not run: {_describe(exc)}"])


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:500]


def _from_run(job: BatchJob, run: RunResult, check: CheckOutcome | None, started: float) -> BatchResult:
    return BatchResult(
        id=job.id,
        success=check.passed if check is not None else run.success,
        claimed_success=run.success,
        check=check,
        answer=run.answer,
        stop_reason=run.stop_reason,
        message=run.message,
        steps=run.steps,
        tokens=run.tokens_in + run.tokens_out,
        tokens_in=run.tokens_in,
        tokens_out=run.tokens_out,
        cost=run.cost_usd,
        wall_s=round(time.monotonic() - started, 3),
        run_dir=run.run_dir,
        error=(run.message or run.stop_reason) if run.stop_reason in ERROR_STOPS else None,
        model=job.config.llm.model,
        final_url=run.final_url,
        tags=job.task.tags,
    )


def _failed(job: BatchJob, exc: BaseException, started: float) -> BatchResult:
    message = _describe(exc)
    return BatchResult(
        id=job.id,
        success=False,
        stop_reason="batch_error",
        message=message,
        error=message,
        wall_s=round(time.monotonic() - started, 3),
        model=job.config.llm.model,
        tags=job.task.tags,
    )
