"""Replaying a workflow with no model: each step's target found again by its fingerprint (``match.py``),
its action run through the environment's one ``act`` path — the same safety gate as the agent's, so a
confirm-level step still asks, or is declined where nobody can be asked —, its recorded effect checked.

A step whose target is not found, is ambiguous, is refused, fails or does not have its effect stops the
replay with a typed error naming the step and what was looked for (agent/workflow/errors.py). Each step is
written to the run record as it ends, so an interrupted replay (Ctrl-C) keeps what ran.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any
from urllib.parse import quote_plus, urlsplit, urlunsplit

from pydantic import ValidationError

from kite_browser.agent.browser.actions import Action, Click, Navigate, parse_action
from kite_browser.agent.browser.env import BrowserEnv
from kite_browser.agent.browser.observation import ActionResult, Fingerprint, Observation
from kite_browser.agent.errors import UsageError
from kite_browser.agent.record import RunRecorder
from kite_browser.agent.result import RunResult, StopReason
from kite_browser.agent.step_record import ActionOutcome, GateOutcome, PageDigest, StepRecord
from kite_browser.agent.workflow.banner import consent_button
from kite_browser.agent.workflow.errors import (
    ReplayAmbiguousTargetError,
    ReplayDivergedError,
    ReplayError,
    ReplayRefusedError,
    ReplayStepFailedError,
    ReplayTargetNotFoundError,
    WorkflowMissingVariableError,
)
from kite_browser.agent.workflow.match import Ambiguous, Found, NotFound, looked_for, pick, worth_a_look
from kite_browser.agent.workflow.model import Step, Workflow, fill
from kite_browser.agent.workflow.save import path_of

MAX_CANDIDATES = 80
"""Fingerprints taken per step at most (the elements that pass ``worth_a_look`` first)."""


def values_for(wf: Workflow, given: dict[str, str]) -> dict[str, str]:
    """Each variable's value: given (``--var``), else its default; secrets are left to the secret store."""
    unknown = sorted(set(given) - set(wf.variables))
    if unknown:
        known = ", ".join(n for n, v in wf.variables.items() if not v.secret) or "none"
        raise UsageError(f"--var {unknown[0]}: the workflow has no such variable (its variables: {known})")
    values: dict[str, str] = {}
    for name, var in wf.variables.items():
        if var.secret:
            continue
        value = given.get(name, var.default)
        if value is None:
            raise WorkflowMissingVariableError(f"variable {name!r} has no default: give --var {name}=VALUE")
        values[name] = value
    return values


def rebase(url: str, recorded_start: str, start: str) -> str:
    """``url`` of the recorded start URL's origin moved to ``start``'s origin (other URLs as they are)."""
    old, new, here = urlsplit(recorded_start), urlsplit(start), urlsplit(url)
    if (here.scheme, here.netloc) != (old.scheme, old.netloc):
        return url
    return urlunsplit((new.scheme, new.netloc, here.path, here.query, here.fragment))


def url_matches(path: str, pattern: str) -> bool:
    """``path`` (a URL's path and query) matches a step's expected ``pattern``, the query's parameters in any
    order: a form whose fields moved sends the same fields in another order."""
    if fnmatchcase(path, pattern):
        return True
    want_path, _, want_query = pattern.partition("[?]")
    have_path, _, have_query = path.partition("?")
    if not want_query or not fnmatchcase(have_path, want_path):
        return False

    def key(pair: str) -> str:
        return pair.split("=", 1)[0]

    want = sorted(want_query.split("&"), key=key)
    have = sorted(have_query.split("&"), key=key)
    return len(want) == len(have) and all(
        key(w) == key(h) and fnmatchcase(h, w) for w, h in zip(want, have, strict=True)
    )


@dataclass
class ReplayResult:
    """How a replay went: steps done of all, the error that stopped it, zero model calls."""

    steps: int
    done: int = 0
    error: ReplayError | None = None
    interrupted: bool = False
    wall_s: float = 0.0
    run_dir: str | None = None
    model_calls: int = 0
    """Always 0: a replay without healing never asks a model."""
    results: list[ActionResult] = field(default_factory=list)
    banners: int = 0
    """Cookie banners the recording did not have, closed on the way (agent/workflow/banner.py)."""

    @property
    def success(self) -> bool:
        return self.error is None and not self.interrupted and self.done == self.steps


class Replayer:
    """One replay of ``workflow``, recorded by ``recorder`` if given. Made before the browser starts (a
    variable without a value is a usage error then); ``run(env)`` replays it in an env the caller started."""

    env: BrowserEnv

    def __init__(
        self,
        workflow: Workflow,
        *,
        values: dict[str, str] | None = None,
        start_url: str | None = None,
        recorder: RunRecorder | None = None,
    ) -> None:
        self.wf, self.recorder = workflow, recorder
        self.values = values_for(workflow, values or {})
        self.start = start_url or workflow.start_url
        self.out = ReplayResult(steps=len(workflow.steps))
        self.result = RunResult(success=False, stop_reason=StopReason.INTERRUPTED)
        """The replay as a run's result, once it ended."""

    async def run(self, env: BrowserEnv) -> ReplayResult:
        self.env, t0 = env, time.monotonic()
        try:
            await self._open()
            for i, step in enumerate(self.wf.steps, 1):
                await self._step(i, step)
                self.out.done = i
        except ReplayError as exc:
            self.out.error = exc
        except (asyncio.CancelledError, KeyboardInterrupt):
            self.out.interrupted = True
            raise
        finally:
            self.out.wall_s = round(time.monotonic() - t0, 3)
            self._finish()
        return self.out

    async def _open(self) -> None:
        if self.recorder is not None:
            self.out.run_dir = str(self.recorder.run_dir)
            self.recorder.start(task=self.wf.task, start_url=self.start, model=None, replay=True)
        result = await self.env.executor.execute(Navigate(url=self.start))  # the user's own start URL
        self._record(
            StepRecord(
                step=0,
                actions=[ActionOutcome(action={"action": "navigate", "url": self.start}, result=result)],
            )
        )
        if not result.ok:
            raise ReplayStepFailedError(
                f"the start URL {self.start} could not be opened: {result.message}", step=0
            )

    def _record(self, record: StepRecord) -> None:
        if self.recorder is not None:
            self.recorder.step(record)

    def _finish(self) -> None:
        """The replay as a run's result (``result``), written to the record when there is one."""
        out = self.out
        stop = (
            StopReason.INTERRUPTED
            if out.interrupted
            else StopReason.DONE
            if out.success
            else StopReason.ERROR
        )
        message = f"replayed {out.done} of {out.steps} steps with no model call"
        if out.error is not None:
            message += f"; {out.error.type}: {out.error.message}"
        self.result = RunResult(
            success=out.success,
            claimed_success=out.success,
            stop_reason=stop,
            message=message,
            steps=out.done,
            model_calls=0,
            run_dir=out.run_dir,
            duration_s=out.wall_s,
            final_url=self.env.ctx.page.url if self.env.ctx.is_alive else None,
        )
        if self.recorder is not None:
            self.recorder.finish(self.result)

    async def _step(self, i: int, step: Step) -> None:
        obs = await self.env.observe(include_all=True)
        if step.target is not None:
            obs = await self._past_banner(i, step.target, obs)
        action = await self._action(i, step, obs)
        acted = await self.env.act(action, obs)
        result, gate = acted.result, acted.gate
        decision = GateOutcome(
            level=str(gate.decision.level), reasons=list(gate.decision.reasons), allowed=gate.allowed
        )
        self._record(
            StepRecord(
                step=i,
                url=obs.url,
                observation=PageDigest.of(obs),
                thought=f"replay: {step.intent}",
                actions=[ActionOutcome(action=action.to_json(), decision=decision, result=result)],
            )
        )
        self.out.results.append(result)
        if acted.refused is not None:
            raise ReplayRefusedError(f"step {i} ({step.intent}) was {acted.refused}: {gate.message}", step=i)
        if not result.ok:
            err = result.error
            why = f"{err.error}: {err.message}" if err is not None else result.message
            raise ReplayStepFailedError(f"step {i} ({step.intent}) failed: {why}", step=i)
        self._check(i, step, result)

    async def _past_banner(self, i: int, want: Fingerprint, obs: Observation) -> Observation:
        """A cookie banner over the page that hides the target is closed first (agent/workflow/banner.py)."""
        button = consent_button(obs, want)
        if button is None:
            return obs
        action = Click(index=button.index)
        acted = await self.env.act(action, obs)
        gate = acted.gate
        decision = GateOutcome(
            level=str(gate.decision.level), reasons=list(gate.decision.reasons), allowed=gate.allowed
        )
        self._record(
            StepRecord(
                step=i,
                url=obs.url,
                thought=f"replay: closed a cookie banner the recording did not have ({button.name!r})",
                actions=[ActionOutcome(action=action.to_json(), decision=decision, result=acted.result)],
            )
        )
        self.out.banners += 1
        return await self.env.observe(include_all=True)

    async def _action(self, i: int, step: Step, obs: Observation) -> Action:
        args: dict[str, Any] = fill(step.args, self.values)
        if step.action == "navigate" and isinstance(args.get("url"), str):
            args["url"] = rebase(args["url"], self.wf.start_url, self.start)
        if step.target is not None:
            args["index"] = await self._find(i, step, obs)
        try:
            return parse_action({**args, "action": step.action})
        except ValidationError as exc:
            raise ReplayStepFailedError(
                f"step {i} ({step.intent}): {exc.errors()[0]['msg']}", step=i
            ) from None

    async def _find(self, i: int, step: Step, obs: Observation) -> int:
        want = step.target
        assert want is not None
        els = [e for e in obs.elements if worth_a_look(want, e)] or [
            e for e in obs.elements if e.tag == want.tag or (want.role and e.role == want.role)
        ]
        candidates = []
        for el in els[:MAX_CANDIDATES]:
            fp = await self.env.fingerprint(el.index)
            if fp is not None:
                candidates.append((el.index, fp))
        match = pick(want, candidates)
        what = looked_for(want)
        if isinstance(match, NotFound):
            raise ReplayTargetNotFoundError(
                f"step {i} ({step.intent}): no element matches {what} on {obs.url} "
                f"({match.looked_at} candidates looked at)",
                step=i,
                looked_for=want.model_dump(exclude_defaults=True),
            )
        if isinstance(match, Ambiguous):
            tied = ", ".join(f"[{s.index}]" for s in match.tied)
            raise ReplayAmbiguousTargetError(
                f"step {i} ({step.intent}): {len(match.tied)} elements match {what} equally well ({tied} "
                f"on {obs.url}); a replay never guesses",
                step=i,
                looked_for=want.model_dump(exclude_defaults=True),
            )
        assert isinstance(match, Found)
        return match.best.index

    def _check(self, i: int, step: Step, result: ActionResult) -> None:
        """The recorded effect happened again, or the replay stops."""
        want = step.expect
        if want is None:
            return
        url = self.env.ctx.page.url
        problems = []
        if want.url is not None:
            pattern = fill(want.url, {k: quote_plus(v) for k, v in self.values.items()})
            if not url_matches(path_of(url), pattern):
                problems.append(f"the page is {path_of(url)}, not {want.url}")
        if want.value is not None and result.effects.value is not None:
            value = fill(want.value, self.values)
            if result.effects.value != value:
                problems.append(f"the field holds {result.effects.value!r}, not {value!r}")
        if want.new_tab and not result.effects.new_tabs:
            problems.append("no new tab opened")
        if problems:
            raise ReplayDivergedError(f"step {i} ({step.intent}) diverged: {'; '.join(problems)}", step=i)
