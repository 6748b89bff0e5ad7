"""How a task is set up in its browser context and how its outcome is judged.

A ``Scorer`` has three parts, all given the task's own browser context: ``prepare`` (what the agent is told
and where it starts), ``ended`` (asked after each step: has the task ended by itself?) and ``score`` (the
verdict, independent of the model's claim). ``CheckScorer`` is the default: the task's text and start URL,
never ending early, scored by its ``check`` (evals/miniwob.py has the MiniWoB++ one). Scorers travel with
their job to wherever it runs (another process, a Ray worker), so they are plain picklable data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, cast

from kite_browser.agent.base.jsontypes import JsonValue
from kite_browser.agent.batch.checks import CheckOutcome, evaluate
from kite_browser.agent.batch.tasks import Task
from kite_browser.agent.run.record import RunResult

if TYPE_CHECKING:
    from kite_browser.agent.browser.session import ContextSession


@dataclass(frozen=True)
class Verdict:
    success: bool
    score: float
    check: CheckOutcome | None = None


class Scorer(Protocol):
    async def prepare(self, task: Task, ctx: ContextSession) -> tuple[str, str | None]:
        """The task text the agent is given and its start URL (None: the page ``prepare`` left open)."""
        ...

    async def ended(self, ctx: ContextSession) -> str | None:
        """Why the task is over by itself (the agent then stops), or None to go on."""
        ...

    async def score(self, task: Task, ctx: ContextSession, run: RunResult) -> Verdict: ...


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:500]


@dataclass(frozen=True)
class CheckScorer:
    """The task's text and start URL; its ``check`` decides, else the agent's own claim."""

    async def prepare(self, task: Task, ctx: ContextSession) -> tuple[str, str | None]:
        return task.task, task.start_url

    async def ended(self, ctx: ContextSession) -> str | None:
        return None

    async def score(self, task: Task, ctx: ContextSession, run: RunResult) -> Verdict:
        if task.check is None:
            return Verdict(run.success, float(run.success))
        try:
            check = await evaluate(
                task.check,
                ctx,
                answer=run.answer,
                run_dir=run.run_dir,
                base_url=task.start_url,
                data=cast(JsonValue, run.data),
            )
        except Exception as exc:  # a dead page cannot be checked: that is a failed check, not a crash
            check = CheckOutcome(passed=False, failures=[f"the check could not run: {_describe(exc)}"])
        return Verdict(check.passed, float(check.passed), check)
