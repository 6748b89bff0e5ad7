"""The run's environment from its start to its end: the env given or opened, made ready (the run record's
header, the trace), wound down (the final screenshot, the trace saved), and the start URL opened. A part of
``Agent`` (agent/run/loop.py) kept apart so that the loop's module is its step."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path

from kite_browser.agent.base.events import ActionFinished, EventSink, PageObserved, RunStarted, emit
from kite_browser.agent.base.fence import defuse
from kite_browser.agent.browser.actions import Action, Navigate
from kite_browser.agent.browser.env import BrowserEnv, EnvSafety
from kite_browser.agent.browser.observation import ActionResult, Element, Observation
from kite_browser.agent.browser.pool import BrowserPool
from kite_browser.agent.browser.session import ContextSession
from kite_browser.agent.browser.timing import StepTimer
from kite_browser.agent.config import KiteConfig
from kite_browser.agent.llm.model import PastAction
from kite_browser.agent.protocols import Environment
from kite_browser.agent.run.memory import Memory, describe_action, describe_result
from kite_browser.agent.run.model_setup import ModelSetup
from kite_browser.agent.run.outcome import build_result
from kite_browser.agent.run.output import OutputSpec
from kite_browser.agent.run.record import RunRecorder, RunResult
from kite_browser.agent.run.refusals import Refusals
from kite_browser.agent.run.step_record import ActionOutcome, GateOutcome, StepRecord
from kite_browser.agent.run.stop import Stop
from kite_browser.agent.run.tool_calls import ToolCalls
from kite_browser.agent.run.totals import Totals
from kite_browser.safety.confirm import GateResult

REFUSED_AS_STALE = frozenset({"stale_element"})
"""Errors of an action whose target is not on the page (an index from an older page, or made up)."""


class RunEnvironment:
    """The environment half of ``Agent`` (its start and end, an action through the gate, what an action did
    into the memory, the history and the events): what it needs of the agent is declared here."""

    config: KiteConfig
    safety: EnvSafety
    model: ModelSetup
    tools: ToolCalls
    recorder: RunRecorder
    on_event: EventSink | None
    memory: Memory
    history: list[PastAction]
    warnings: list[str]
    final_url: str | None
    _given_env: Environment | None
    _given_context: ContextSession | None
    env: Environment
    refusals: Refusals
    totals: Totals
    output: OutputSpec
    timer: StepTimer
    steps_done: int

    def _remember(self, past: Sequence[PastAction]) -> None:
        """``past`` as the run's history (the model's view) and its memory (the prompt's lines), step 0."""
        if not past:
            return
        self.history = list(past)
        self.memory.begin(0, "")
        for p in past:
            self.memory.add(p.line or str(p.action), None, None)

    @contextlib.asynccontextmanager
    async def _environment(self, run_dir: Path) -> AsyncIterator[Environment]:
        """The run's environment: the one given (left open), a ``BrowserEnv`` over the given context (left
        open; a new one each run, so a run starts from a fresh snapshotter), or one on a new browser of its
        own, closed at the end of the run."""
        if self._given_env is not None:
            yield self._given_env
        elif self._given_context is not None:
            yield BrowserEnv(self.config, self._given_context, self.safety)
        else:
            async with BrowserPool(self.config.browser, downloads_dir=run_dir / "downloads") as pool:
                env = await BrowserEnv.open(pool, self.config, self.safety, run_dir=run_dir, default=True)
                try:
                    yield env
                finally:
                    await env.close()

    async def _prepare(self, env: Environment, task: str, start_url: str | None) -> None:
        """The env ready for this run (its folder, the safety rules), the trace, the run record's header."""
        self.env, rec = env, self.recorder
        await env.start(rec.run_dir)
        if self.config.run.trace:
            await env.start_trace()
        self.warnings += await self.tools.start(self.model)
        rec.start(
            task=task,
            start_url=start_url,
            model=self.model.model,
            mode=self.model.mode,
            function_calling=self.model.function_calling,
            config=self.config.for_record(),
        )
        await emit(self.on_event, RunStarted(task=task, model=self.model.model, run_dir=str(rec.run_dir)))

    async def _wind_down(self) -> None:
        env = self.env
        await env.stop()  # pending notifications delivered; a context the run was handed let go
        self.final_url = env.current_url()
        if self.config.run.screenshots:  # the page after the last step (each step's own shows it before)
            await env.screenshot(self.recorder.screenshots / "final.png")
        await self.tools.close()
        if self.config.run.trace:
            await env.stop_trace(self.recorder.run_dir / "trace.zip")

    async def _open(self, url: str) -> None:
        result = await self.env.open_url(url)  # the user's own start URL, past the gate
        self.recorder.step(
            StepRecord(step=0, actions=[ActionOutcome(action=Navigate(url=url).to_json(), result=result)])
        )
        if not result.ok:
            raise Stop.unreachable(url, result.error)

    async def _run(
        self,
        action: Action,
        element: Element | None,
        obs: Observation,
        step: int,
        described: str,
        decided: Callable[[Action, Observation | None, GateResult], Awaitable[None]],
    ) -> tuple[ActionResult, GateOutcome]:
        """The env's gate and run of ``action``; a refusal tracked in the run's ledger."""
        acted = await self.env.act(action, obs, decided=decided, veto=self.output.refuse, timer=self.timer)
        result, gate = acted.result, acted.gate
        decision = GateOutcome(
            level=str(gate.decision.level), reasons=list(gate.decision.reasons), allowed=gate.allowed
        )
        if result.error is not None and result.error.error in REFUSED_AS_STALE:
            self.totals.actions_refused += 1
        refused = acted.refused
        reason = gate.message or "; ".join(gate.decision.reasons)
        if refused is None and (late := Refusals.after_run(result)) is not None:
            refused, reason = late
        self.refusals.track(action, element, obs, step, described, refused, reason)
        return result, decision

    async def _noted(
        self,
        action: Action,
        element: Element | None,
        result: ActionResult,
        decision: GateOutcome,
        step: int,
        described: str,
    ) -> tuple[ActionResult, GateOutcome]:
        """``result`` into the memory, the history and the run's events."""
        said = defuse(describe_action(action, element))  # the element's name is the page's words
        line = f"{said} → {describe_result(result, fenced=True)}"
        short = f"{said} → {describe_result(result, full=False, fenced=True)}"
        self.memory.add(line, short, action.target_index)
        self.history.append(
            PastAction(
                step=step,
                action=action.to_json(),
                ok=result.ok,
                element=element,
                error=result.error.error if result.error else None,
                line=line,
            )
        )
        await emit(
            self.on_event,
            ActionFinished(
                step=step,
                action=described,
                ok=result.ok,
                message=describe_result(result, full=False),
                level=decision.level,
            ),
        )
        return result, decision

    def _page_news(self, step: int) -> list[str]:
        """What the page did while no action of the run was going: the loads stopped (for the prompt), and the
        state-changing requests it sent then, held and refused, kept as the run's refusals."""
        news = self.env.blocked_between()
        self.refusals.held(self.env.held_between(), step)
        return news

    def _result(self, stop: Stop, started: float) -> RunResult:
        """The run's result; what the page sent after the last action, held and refused, is reported too."""
        if getattr(self, "env", None) is not None:  # the run got as far as its environment
            self._page_news(self.steps_done)
        run_dir, declined = str(self.recorder.run_dir), self.refusals.outstanding
        return build_result(stop, declined, self.totals, self.steps_done, started, run_dir, self.final_url)


def page_observed(step: int, obs: Observation) -> PageObserved:
    """The run event for the page seen at ``step``."""
    return PageObserved(
        step=step,
        url=obs.url,
        title=obs.summary.title,
        screenshot=obs.screenshot_path,
        text=obs.summary.visible_text[:200],
    )
