"""One job in one browser context: the scorer prepares the page, the agent runs (or, for a task with a
``workflow``, the workflow is replayed with no model: ``replayed.py``), the scorer judges.

Used by every backend (in this process, or in a worker elsewhere), so a task's result does not depend on
where it ran.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from kite_browser.agent.base.result import ERROR_STOPS, StopReason
from kite_browser.agent.batch.jobs import Job
from kite_browser.agent.batch.results import TaskResult
from kite_browser.agent.batch.scoring import Verdict
from kite_browser.agent.run.record import RunResult
from kite_browser.safety.confirm import BY_TASK, BatchConfirmer
from kite_browser.safety.output import redact_model

if TYPE_CHECKING:
    from kite_browser.agent.browser.session import ContextSession


def describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:500]


async def run_job(job: Job, ctx: ContextSession, started: float | None = None) -> TaskResult:
    """Run ``job`` in ``ctx`` (left open for the caller to close). A failure of Kite itself — the page could
    not be prepared, a bug — becomes a failed result with stop reason ``runner_error``. ``started``: when the
    task began (``time.monotonic()``, e.g. before its context was opened); default now."""
    from kite_browser.agent.run.loop import Agent

    started = time.monotonic() if started is None else started
    try:
        text, start_url = await job.scorer.prepare(job.task, ctx)
        if job.task.workflow is not None:
            from kite_browser.agent.batch.replayed import replay_job

            run = await replay_job(job, ctx, start_url, text)
            verdict = await job.scorer.score(job.task, ctx, run)
            return _redacted(job, from_run(job, text, run, verdict, time.monotonic() - started))
        from kite_browser.agent.workflow.cache import CachedRun

        runner = CachedRun if job.task.cache else Agent  # the cache replays, else the same agent
        run = await runner(
            job.config,
            model=job.model,
            confirmer=BatchConfirmer(job.approve, allow=BY_TASK),
            context=ctx,
            secrets=job.secrets,
            label=job.label,
            stop_when=lambda _env: job.scorer.ended(ctx),  # the scorer reads the task's own context
            output_type=job.task.resolved_schema,
        ).run(text, start_url=start_url)
        verdict = await job.scorer.score(job.task, ctx, run)
    except Exception as exc:  # one broken task never ends the batch
        return _redacted(job, failed(job, exc, time.monotonic() - started))
    # the check's lines may quote the page (a URL with a secret in its query): the task's result is redacted
    # as a whole, so results files and reports never carry a secret
    return _redacted(job, from_run(job, text, run, verdict, time.monotonic() - started))


def _redacted(job: Job, result: TaskResult) -> TaskResult:
    """Every string redacted but the task id (the key resume matches; a short secret may read like a word
    of it, e.g. "wrong" in "account-login-wrong") and the run folder, named after the id (else its path
    would name no folder)."""
    return redact_model(job.secrets, result).model_copy(update={"id": job.id, "run_dir": result.run_dir})


def from_run(job: Job, text: str, run: RunResult, verdict: Verdict, wall_s: float) -> TaskResult:
    """The task's result: every field of the run, the verdict, and what only the task knows."""
    return TaskResult(
        **{**run.model_dump(), "success": verdict.success},
        id=job.id,
        repeat=job.repeat,
        task=text,
        score=verdict.score,
        check=verdict.check,
        wall_s=round(wall_s, 3),
        error=(run.message or run.stop_reason) if run.stop_reason in ERROR_STOPS else None,
        model=job.config.llm.model,
        tags=job.task.tags,
    )


def failed(job: Job, exc: BaseException | str, wall_s: float = 0.0) -> TaskResult:
    """A task that could not run (no context, a bug, a worker that kept dying)."""
    message = exc if isinstance(exc, str) else describe(exc)
    return TaskResult(
        id=job.id,
        repeat=job.repeat,
        task=job.task.task,
        success=False,
        stop_reason=StopReason.RUNNER_ERROR,
        message=message,
        error=message,
        wall_s=round(wall_s, 3),
        model=job.config.llm.model,
        tags=job.task.tags,
    )
