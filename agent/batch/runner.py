"""The one task runner behind ``kite batch`` and ``kite eval``: runs jobs on a backend, N at once, appends
every result to a JSONL file the moment it finishes, and reports progress.

    jobs = await build_jobs(read_task_file("tasks.yaml"), config, placeholders=...)   # agent/batch/jobs.py
    runner = BatchRunner(jobs, LocalBackend(config.browser, concurrency=4), out="results.jsonl")
    results = await runner.run()

Resuming: ``runner.pending`` are the jobs without a result in ``out`` yet; ``run`` only runs those. A task
interrupted by Ctrl-C (or a killed runner) writes nothing, so it runs again next time; nothing runs twice:
``interrupt()`` (called from a signal handler, before the browser's death can be noticed) makes every result
that arrives afterwards be dropped; a task cancelled with ``run()`` writes nothing either, even when a call it
awaited lost the cancel (agent/base/cancel.py). Safety follows the batch policy: every job gets a
``BatchConfirmer`` (never an interactive prompt). A failing task — browser crash, model error, a bug — becomes a failed result;
it never stops the others. Without ``out`` (an eval) nothing is written and nothing is skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from pathlib import Path

from kite_browser.agent.base.cancel import cancel_requested
from kite_browser.agent.batch.backend import Backend
from kite_browser.agent.batch.jobs import Job
from kite_browser.agent.batch.results import ResultsFile, ResultWriter, TaskResult, read_results

Hook = Callable[[Job], Awaitable[None] | None]
ResultHook = Callable[[Job, TaskResult], Awaitable[None] | None]


async def _call(hook: Callable[..., object] | None, *args: object) -> None:
    if hook is not None:
        maybe = hook(*args)
        if asyncio.iscoroutine(maybe):
            await maybe


class BatchRunner:
    def __init__(
        self,
        jobs: list[Job],
        backend: Backend,
        *,
        out: str | Path | None = None,
        retry_failed: bool = False,
        on_start: Hook | None = None,
        on_result: ResultHook | None = None,
    ) -> None:
        self.jobs, self.backend = jobs, backend
        self.out = Path(out) if out is not None else None
        self.on_start, self.on_result = on_start, on_result
        self.existing: ResultsFile = read_results(self.out) if self.out is not None else ResultsFile()
        self.pending = [j for j in jobs if not self._finished(j.key, retry_failed)]
        self.active = 0
        """Tasks running right now."""
        self.interrupted = False

    @property
    def concurrency(self) -> int:
        return self.backend.slots

    def _finished(self, key: str, retry_failed: bool) -> bool:
        found = self.existing.results.get(key)
        return found is not None and (found.success or not retry_failed)

    def interrupt(self) -> None:
        """From now on, results are dropped: the tasks in flight were cut short and must run again."""
        self.interrupted = True

    async def run(self) -> list[TaskResult]:
        """Run the pending jobs; returns their results in finishing order."""
        if not self.pending:
            return []
        done: list[TaskResult] = []
        writer = ResultWriter(self.out) if self.out is not None else None
        try:
            await self.backend.start()
            gate = asyncio.Semaphore(self.backend.slots)
            await asyncio.gather(*(self._one(job, gate, writer, done) for job in self.pending))
        finally:
            with contextlib.suppress(Exception):
                await self.backend.close()
            if writer is not None:
                writer.close()
        return done

    async def _one(
        self, job: Job, gate: asyncio.Semaphore, writer: ResultWriter | None, done: list[TaskResult]
    ) -> None:
        async with gate:
            if self.interrupted:
                return
            self.active += 1
            try:
                await _call(self.on_start, job)
                result = await self.backend.run(job)
            finally:
                self.active -= 1
            if cancel_requested():  # cancelled, and a call lost the cancel: cut short all the same
                raise asyncio.CancelledError
            if self.interrupted:  # cut short by Ctrl-C: not a result, the task runs again on resume
                return
            if writer is not None:
                writer.write(result)  # before anyone hears of it: a result reported is a result kept
            done.append(result)
        await _call(self.on_result, job, result)
