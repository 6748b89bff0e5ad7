"""Replaying a workflow with no model: each step's target found again by its fingerprint (``match.py``),
its action run through the environment's one ``act`` path — the same safety gate as the agent's, so a
confirm-level step still asks, or is declined where nobody can be asked —, its recorded effect checked.

A step whose target is not found, is ambiguous, is refused, fails or does not have its effect stops the
replay with a typed error naming the step and what was looked for (agent/workflow/errors.py). Each step is
written to the run record as it ends, so an interrupted replay (Ctrl-C) keeps what ran.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from urllib.parse import quote_plus, urlsplit, urlunsplit

from pydantic import ValidationError

from kite_browser.agent.base import telemetry
from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.base.fence import defuse
from kite_browser.agent.base.jsontypes import JsonValue
from kite_browser.agent.base.result import RefusedAction, RunResult, StopReason
from kite_browser.agent.browser.actions import Action, Click, Scroll, parse_action
from kite_browser.agent.browser.observation import ActionResult, Fingerprint, Observation
from kite_browser.agent.browser.render import render_observation
from kite_browser.agent.llm.model import PastAction
from kite_browser.agent.protocols import Environment
from kite_browser.agent.run.memory import describe_action, describe_result
from kite_browser.agent.run.record import RunRecorder
from kite_browser.agent.run.step_record import ActionOutcome, GateOutcome, PageDigest, StepRecord
from kite_browser.agent.workflow.answer import read_again
from kite_browser.agent.workflow.banner import consent_button
from kite_browser.agent.workflow.errors import (
    ReplayAmbiguousTargetError,
    ReplayAnswerNotFoundError,
    ReplayDivergedError,
    ReplayError,
    ReplayRefusedError,
    ReplayStepFailedError,
    ReplayTargetNotFoundError,
    WorkflowMissingVariableError,
)
from kite_browser.agent.workflow.heal import Healer, intent_of
from kite_browser.agent.workflow.match import (
    Ambiguous,
    Found,
    NotFound,
    as_recorded,
    looked_for,
    pick,
    worth_a_look,
)
from kite_browser.agent.workflow.model import Answer, Expect, Step, Workflow, fill, with_targets
from kite_browser.agent.workflow.save import StepLine, path_of, steps_of_run

HISTORY_ACTIONS = frozenset({"goBack", "goForward"})
MAX_TRIES = 8
"""Tries of a step whose target moved or changed as it was acted on (within the step's time)."""
MAX_CANDIDATES = 80
"""Fingerprints taken per step at most (the elements that pass ``worth_a_look`` first)."""


class _NotYet(Exception):
    """A first look found no element with the very fingerprint recorded: wait for the page's loading and
    look again."""


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


def check_secrets(wf: Workflow, given: Iterable[str]) -> None:
    """Every secret the workflow declares has a value among ``given`` (the secret store's names): checked
    before the browser starts, not at the step that types it."""
    missing = sorted(n for n, v in wf.variables.items() if v.secret and n not in set(given))
    if missing:
        names = ", ".join(missing)
        how = " ".join(f"--secret {n}=VALUE" for n in missing)
        raise WorkflowMissingVariableError(
            f"the workflow needs the secret{'s' if len(missing) > 1 else ''} {names}: give {how} "
            f"(or KITE_SECRET_{missing[0].upper()}, or safety.secrets in the config)"
        )


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
    """How a replay went: steps done of all, who did each (``by``), the error that stopped it, the model
    calls healing made (0 without a healer)."""

    steps: int
    done: int = 0
    error: ReplayError | None = None
    interrupted: bool = False
    wall_s: float = 0.0
    run_dir: str | None = None
    model_calls: int = 0
    """0 for a replay no model healed."""
    results: list[ActionResult] = field(default_factory=list)
    banners: int = 0
    """Cookie banners the recording did not have, closed on the way (agent/workflow/banner.py)."""
    by: list[str] = field(default_factory=list)
    """Per step of the record: ``replayed``, ``healed`` or ``agent``."""
    takeover: RunResult | None = None
    """The agent's run when it took over the rest of the task."""
    healed: Workflow | None = None
    """The workflow as it ran (a healed step's new target, the agent's steps), when it succeeded."""
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float | None = None
    answer: str = ""
    """The answer: the recorded one with its passage read again on the replayed page, or the model's."""
    answered_by: str | None = None
    """``page`` (read again), ``model`` (one call for the answer alone) or ``recorded`` (the recorded run's
    words, which quote no page); None without an answer."""

    @property
    def success(self) -> bool:
        if self.takeover is not None:
            return self.takeover.success and not self.interrupted
        return self.error is None and not self.interrupted and self.done == self.steps

    @property
    def changed(self) -> bool:
        """A model did some of it: the workflow as it ran differs from the file."""
        return any(b != "replayed" for b in self.by)

    def spent(self, run: RunResult) -> None:
        self.model_calls += run.model_calls or 0
        self.tokens_in += run.tokens_in
        self.tokens_out += run.tokens_out
        if run.cost_usd is not None:
            self.cost_usd = (self.cost_usd or 0.0) + run.cost_usd


def _stop_reason(out: ReplayResult) -> StopReason:
    if out.interrupted:
        return StopReason.INTERRUPTED
    if out.takeover is not None:
        return out.takeover.stop_reason
    return StopReason.DONE if out.success else StopReason.REPLAY_DIVERGED


def _declined(out: ReplayResult, as_recorded: list[RefusedAction]) -> list[RefusedAction]:
    """The steps the gate refused again as in the recorded run, the step it refused that the recorded run
    did (the replay stopped there), and what the agent's run left declined."""
    refused = list(as_recorded)
    err = out.error
    if isinstance(err, ReplayRefusedError):
        outcome = "blocked" if err.context.get("refused") == "blocked" else "declined"
        refused.append(
            RefusedAction(
                step=int(err.context.get("step") or 0),
                action=str(err.context.get("intent") or ""),
                outcome=outcome,
                reason=err.message,
            )
        )
    return refused + (out.takeover.declined if out.takeover is not None else [])


class Replayer:
    """One replay of ``workflow``, recorded by ``recorder`` if given. Made before the browser starts (a
    variable without a value is a usage error then); ``run(env)`` replays it in an env the caller started.
    ``healer``: a model that does a step the replay cannot (agent/workflow/heal.py); without one a failed
    step stops the replay with a typed error."""

    env: Environment

    def __init__(
        self,
        workflow: Workflow,
        *,
        values: dict[str, str] | None = None,
        start_url: str | None = None,
        recorder: RunRecorder | None = None,
        healer: Healer | None = None,
        recorded_calls: int | None = None,
        source: str | None = None,
    ) -> None:
        """``recorded_calls``: the model calls of the run the workflow was recorded from (a cache entry's):
        the result then says how many this replay saved; ``source``: where the workflow came from, for the
        record (``cache entry KEY``)."""
        self.wf, self.recorder, self.healer = workflow, recorder, healer
        self.recorded_calls, self.source = recorded_calls, source
        self.values = values_for(workflow, values or {})
        self.start = start_url or workflow.start_url
        self.out = ReplayResult(steps=len(workflow.steps))
        self.result = RunResult(success=False, stop_reason=StopReason.INTERRUPTED)
        """The replay as a run's result, once it ended."""
        self.past: list[PastAction] = []
        """The actions taken so far, as a model is shown them when it heals or takes over."""
        self.ran: list[Step] = []
        """The steps as they ran: a replayed step with its target's fingerprint taken now, a model's steps."""
        self.variables = dict(workflow.variables)
        self.refused: list[RefusedAction] = []
        """The steps the gate refused again, as in the recorded run."""

    async def run(self, env: Environment) -> ReplayResult:
        self.env, t0 = env, time.monotonic()
        self.home = env.run_dir
        try:
            await self._open()
            for i, step in enumerate(self.wf.steps, 1):
                with telemetry.span(
                    "kite.replay.step", {"kite.step.number": i, "kite.action.kind": step.action}
                ):
                    if not await self._one(i, step):
                        break
                self.out.done = i
            if self.out.takeover is None:  # the page as loaded as an agent's step leaves it
                await self.env.quiet(fresh=self._opened_a_document())
                await self._answer()
        except ReplayError as exc:
            self.out.error = exc
        except (asyncio.CancelledError, KeyboardInterrupt):
            self.out.interrupted = True
            raise
        finally:
            self.out.wall_s = round(time.monotonic() - t0, 3)
            self._finish()
        return self.out

    async def _one(self, i: int, step: Step) -> bool:
        """Step ``i`` replayed, or healed; False when the agent took over the rest of the task."""
        try:
            try:
                await self._step(i, step)
            except ReplayStepFailedError as exc:
                if exc.context.get("cause") == "target_changed":
                    await self._again(i, step, exc)
                elif exc.context.get("cause") == "stale_element":
                    await self._step(i, step)  # the page changed between the look and the act: look again
                else:
                    raise
            self.out.by.append("replayed")
            return True
        except ReplayRefusedError:
            raise  # the gate's answer stands: no model is asked to do what was declined
        except ReplayError as exc:
            if self.healer is None:
                raise
            if await self._heal(i, step, exc):
                return True
            await self._take_over(i, exc)
            return False

    async def _again(self, i: int, step: Step, first: ReplayStepFailedError) -> None:
        """The target moved or changed as it was acted on (content that shifts: nothing was activated): the
        page's own work waited for and the step looked up and tried again, until it runs or the step's time
        (``browser.step_timeout_ms``) is over; then the error says so, for a person."""
        budget_s = self.env.config.browser.step_timeout_ms / 1000
        deadline, tries = time.monotonic() + budget_s, 1
        last: ReplayError = first
        while time.monotonic() < deadline and tries < MAX_TRIES:
            await self.env.quiet(fresh=False)
            tries += 1
            try:
                await self._step(i, step)
                return
            except (ReplayStepFailedError, ReplayTargetNotFoundError) as exc:
                if isinstance(exc, ReplayStepFailedError) and exc.context.get("cause") != "target_changed":
                    raise
                last = exc
        if isinstance(last, ReplayTargetNotFoundError):
            raise last
        raise ReplayStepFailedError(
            f"step {i} ({step.intent}): its target kept moving or changing as it was acted on ({tries} tries "
            f"in {budget_s - max(0.0, deadline - time.monotonic()):.1f} s; nothing was activated): "
            "replay again once the page holds still, or with --model to let a model do this step",
            step=i,
            cause="target_changed",
        )

    async def _open(self) -> None:
        if self.recorder is not None:
            self.out.run_dir = str(self.recorder.run_dir)
            self.recorder.start(
                task=self.wf.task,
                start_url=self.start,
                model=self.healer.model_name if self.healer is not None else None,
                replay=True,
                workflow=self.source,
            )
        # the user's own start URL; its loading is waited for only when the first step needs it (_look)
        result = await self.env.open_url(self.start, effect_only=True)
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

    def _opened_a_document(self) -> bool:
        """The last step replayed (or the start URL, with none) opened a new document: its own loading is
        waited for as a new document's; else as after an action (the document's loading was over by then)."""
        if not self.out.by or self.out.by[-1] != "replayed" or not self.out.results:
            return True  # nothing replayed yet, or a model's step: its actions are not known here
        last = self.out.results[-1]
        return last.effects.navigated or bool(last.effects.new_tabs)

    def _record(self, record: StepRecord) -> None:
        if self.recorder is not None:
            self.recorder.step(record)

    def _finish(self) -> None:
        """The replay as a run's result (``result``), written to the record when there is one."""
        out = self.out
        counts = {k: out.by.count(k) for k in ("replayed", "healed", "agent")}
        message = f"replayed {counts['replayed']} of {out.steps} steps with no model call"
        if self.source:
            message = f"{self.source}: {message}"
        if counts["healed"]:
            message += f", healed {counts['healed']} with the model"
        if out.takeover is not None:
            message += f"; the agent took over the rest ({out.takeover.stop_reason}: {out.takeover.message})"
        if out.answered_by == "page":
            message += "; the answer read again on the page"
        elif out.answered_by == "model":
            message += "; the answer asked of the model"
        if out.error is not None:
            message += f"; {out.error.type}: {out.error.message}"
        if out.success:
            out.healed = self._as_ran()
        take = out.takeover
        self.result = RunResult(
            success=out.success,
            claimed_success=out.success,
            declined=_declined(out, self.refused),
            answer=take.answer if take is not None else out.answer,
            data=take.data if take is not None else None,
            stop_reason=_stop_reason(out),
            message=message,
            steps=len(out.by),
            tokens_in=out.tokens_in,
            tokens_out=out.tokens_out,
            cost_usd=out.cost_usd,
            model_calls=out.model_calls,
            model_calls_saved=(
                max(0, self.recorded_calls - out.model_calls) if self.recorded_calls is not None else None
            ),
            steps_by=counts,
            run_dir=out.run_dir,
            duration_s=out.wall_s,
            final_url=self.env.current_url(),
        )
        if self.recorder is not None:
            self.recorder.finish(self.result)

    async def _answer(self) -> None:
        """The recorded answer read again on the page the replay ended on (``agent/workflow/answer.py``);
        not found there, the model answers in one call (with a healer), else the replay stops with a typed
        error: a question's replay never succeeds with no answer."""
        if self.wf.answer is None or self.out.done < self.out.steps:
            return
        want = Answer.model_validate(fill(self.wf.answer.model_dump(), self.values))
        if not want.passage:  # the model's own words ("done"), nothing it read: they stand as recorded
            self.out.answer, self.out.answered_by = want.text, "recorded"
            return
        obs = await self.env.observe()
        read = await self.env.read_page()
        texts = [render_observation(obs), str(read.data.get("text") or "")]
        found = read_again(want, texts)
        if found is not None:
            self.out.answer, self.out.answered_by = found, "page"
            return
        where = f"{want.before}…{want.after}" if want.before or want.after else "anywhere"
        why = f"the answer's passage {want.passage!r} ({where}) is not on {obs.url}"
        if self.healer is not None:
            healing = await self.healer.answer(self.env, task=self.wf.task, why=why, past=self.past)
            await self.env.start(self.home)
            self.out.spent(healing.result)
            run = healing.result
            self._record_model_run(len(self.wf.steps) + 1, None, run, f"answer ({why})")
            if run.success and run.answer.strip():
                self.out.answer, self.out.answered_by = run.answer, "model"
                return
        raise ReplayAnswerNotFoundError(
            f"every step replayed, but {why}"
            + ("" if self.healer is None else "; the model did not answer either")
            + ("" if self.healer is not None else ": replay with a model to ask it for the answer"),
            step=len(self.wf.steps),
        )

    def _as_ran(self) -> Workflow:
        update: dict[str, object] = {"steps": list(self.ran), "variables": self.variables}
        if self.out.takeover is not None and self.out.takeover.answer:
            update["answer"] = None  # the agent's answer: where it read it is in its own record
        return self.wf.model_copy(update=update)

    async def _look(self, i: int, step: Step) -> tuple[Observation, Action]:
        """The page observed and the step's action on its target. Each action settles ``effect_only`` (what
        it set off, not the page's own loading): a target found at once with the very fingerprint recorded
        is acted on; else the page's loading is waited for and the page looked at again, and what that look
        finds stands (the one best match, or a typed error: never a guess)."""
        obs = await self._observe(i, step)
        try:
            return obs, await self._action(i, step, obs, at_once=True)
        except _NotYet:
            await self.env.quiet()
        obs = await self._observe(i, step)
        return obs, await self._action(i, step, obs)

    async def _observe(self, i: int, step: Step) -> Observation:
        obs = await self.env.observe(include_all=True)
        if step.target is not None:
            obs = await self._past_banner(i, step.target, obs)
        return obs

    async def _step(self, i: int, step: Step) -> None:
        obs, action = await self._look(i, step)
        # a scroll's effect is the page's own loading (an infinite feed fetches when its end comes into view, a
        # frame or more after the scroll): it settles as the agent's does, else the next scroll comes while the
        # feed is still fetching and loads nothing
        acted = await self.env.act(action, obs, effect_only=not isinstance(action, Scroll))
        result, gate = acted.result, acted.gate
        decision = GateOutcome(
            level=str(gate.decision.level), reasons=list(gate.decision.reasons), allowed=gate.allowed
        )
        if result.ok and not self._history_is_the_models(step) and not self._url_holds(step):
            # the navigation may still be on its way (a form's POST answered by a redirect)
            await self.env.reach(lambda url: self._url_holds(step, url))
        problems = self._problems(step, result)
        as_recorded = result.ok or self._expected(step, acted.refused)
        self._record(
            StepRecord(
                step=i,
                url=obs.url,
                observation=PageDigest.of(obs),
                thought=f"replay: {step.intent}",
                actions=[ActionOutcome(action=action.to_json(), decision=decision, result=result)],
                by="replayed" if as_recorded and not problems else None,
            )
        )
        self.out.results.append(result)
        if acted.refused is not None and self._refused_as_recorded(i, step, acted.refused):
            return
        if acted.refused is not None:
            raise ReplayRefusedError(
                f"step {i} ({step.intent}) was {acted.refused}: {gate.message}",
                step=i,
                intent=step.intent,
                refused=acted.refused,
            )
        if not result.ok:
            err = result.error
            why = f"{err.error}: {err.message}" if err is not None else result.message
            raise ReplayStepFailedError(
                f"step {i} ({step.intent}) failed: {why}",
                step=i,
                cause=err.error if err is not None else None,
            )
        element = obs.element(action.target_index) if action.target_index is not None else None
        said = defuse(describe_action(action, element))
        line = f"{said} → {describe_result(result, full=False, fenced=True)} (replayed from the workflow)"
        self.past.append(PastAction(step=i, action=action.to_json(), ok=True, element=element, line=line))
        if problems:  # the action did run (the past keeps it), but not to the recorded effect
            raise ReplayDivergedError(f"step {i} ({step.intent}) diverged: {'; '.join(problems)}", step=i)
        target = result.target if step.target is not None and result.target is not None else step.target
        drop = result.drop if step.drop is not None and result.drop is not None else step.drop
        expect = step.expect.model_copy(update={"refused": None}) if step.expect is not None else None
        expect = expect if expect != Expect() else None
        self.ran.append(step.model_copy(update={"target": target, "drop": drop, "expect": expect}))

    @staticmethod
    def _expected(step: Step, refused: str | None) -> bool:
        """The gate refused the step now as in the recorded run."""
        return refused is not None and step.expect is not None and step.expect.refused is not None

    def _refused_as_recorded(self, i: int, step: Step, refused: str) -> bool:
        """A step the recorded run's gate refused, refused again: it did not happen, as recorded, and the
        replay goes on (kept in the past and the result's ``declined``)."""
        if not self._expected(step, refused):
            return False
        line = f"{defuse(step.intent)} → {refused} by the safety gate (as in the recorded run)"
        self.past.append(
            PastAction(step=i, action={"action": step.action}, ok=False, error=refused, line=line)
        )
        self.refused.append(
            RefusedAction(step=i, action=step.intent, outcome=refused, reason="refused again, as recorded")
        )
        self.ran.append(step)
        return True

    # ------------------------------------------------------------------ healing
    def _url_holds(self, step: Step, url: str | None = None) -> bool:
        """The page (or ``url``) is at the step's recorded URL (True for a step without one)."""
        want = step.expect
        if want is None or want.url is None:
            return True
        pattern = fill(want.url, {k: quote_plus(v) for k, v in self.values.items()})
        return url_matches(path_of(url if url is not None else self.env.current_url() or ""), pattern)

    def _effect_holds(self, step: Step, actions: list[PastAction]) -> bool:
        """A model's actions did the step: one of its kind succeeded and the recorded URL is reached (a step
        without an expected URL is done when the model says so)."""
        if step.expect is None or step.expect.url is None:
            return False
        return any(a.ok and a.name == step.action for a in actions) and self._url_holds(step)

    async def _heal(self, i: int, step: Step, exc: ReplayError) -> bool:
        """The model does step ``i`` (and only it); True when it did, the step recorded as ``healed``."""
        assert self.healer is not None
        intent = intent_of(step, self.values)
        healing = await self.healer.heal(
            self.env,
            task=self.wf.task,
            step=i,
            steps=len(self.wf.steps),
            intent=intent,
            why=exc.message,
            variables=self.values,
            past=self.past,
            done_when=lambda actions: self._effect_holds(step, actions),
        )
        await self.env.start(self.home)  # the replay's own folder again (the model's run had its own)
        self.out.spent(healing.result)
        healed = healing.healed and self._url_holds(step)
        self._record_model_run(
            i, "healed" if healed else None, healing.result, f"heal ({exc.type}): {intent}"
        )
        if healed:
            self.out.by.append("healed")
            self.past += healing.actions
            self.ran += self._steps_of(healing.result)
        return healed

    async def _take_over(self, i: int, exc: ReplayError) -> None:
        """The agent finishes the task from this page (the healed step could not be done: the page has moved
        on beyond the recorded path); without a task to give it, the replay stops with ``exc``."""
        assert self.healer is not None
        if not self.healer.can_take_over(self.wf.task):
            raise exc
        healing = await self.healer.take_over(
            self.env, task=self.wf.task, why=exc.message, variables=self.values, past=self.past
        )
        await self.env.start(self.home)
        self.out.spent(healing.result)
        self.out.takeover = healing.result
        self.out.by += ["agent"] * max(1, healing.result.steps)
        self._record_agent_run(i, healing.result)
        self.ran += self._steps_of(healing.result)

    def _record_model_run(self, i: int, by: str | None, run: RunResult, thought: str) -> None:
        """A model's run in the replay as one line of its record: every action it took, its folder, its calls."""
        actions = []
        for line in _lines_of(run.run_dir):
            actions += [ActionOutcome.model_validate(a) for a in line.get("actions") or []]
        self._record(
            StepRecord(
                step=i,
                url=run.final_url,
                thought=thought,
                actions=actions,
                by=by,
                sub_run=run.run_dir,
                model_calls=run.model_calls,
            )
        )

    def _record_agent_run(self, i: int, run: RunResult) -> None:
        """The agent's steps in the replay's record, one line each from step ``i`` on (its full record in its
        own folder: ``sub_run``)."""
        for n, line in enumerate((x for x in _lines_of(run.run_dir) if x.get("step")), i):
            self._record(
                StepRecord(
                    step=n,
                    url=line.get("url"),
                    thought=line.get("thought"),
                    actions=[ActionOutcome.model_validate(a) for a in line.get("actions") or []],
                    by="agent",
                    sub_run=run.run_dir,
                    model_calls=1 if line.get("reply") else 0,
                )
            )

    def _steps_of(self, run: RunResult) -> list[Step]:
        """A model's run as workflow steps: its typed text written as the replay's variables where the value
        is one of theirs, else as new variables."""
        if run.run_dir is None:
            return []
        steps, new_vars = steps_of_run(run.run_dir)
        by_value = {v: k for k, v in self.values.items()}
        renames: dict[str, str] = {}
        for name, var in new_vars.items():
            if var.secret:
                self.variables.setdefault(name, var)
            elif var.default in by_value:
                renames[name] = by_value[var.default]
            else:
                fresh, n = name, 2
                while fresh in self.variables:
                    fresh, n = f"{name}_{n}", n + 1
                renames[name], self.variables[fresh] = fresh, var
        out = []
        for s in steps:
            data: JsonValue = s.model_dump(mode="json")
            for old, new in renames.items():
                data = _renamed(data, old, new)
            out.append(Step.model_validate(data))
        return out

    async def _past_banner(self, i: int, want: Fingerprint, obs: Observation) -> Observation:
        """A cookie banner over the page that hides the target is closed first (agent/workflow/banner.py)."""
        button = consent_button(obs, want)
        if button is None:
            return obs
        action = Click(index=button.index)
        acted = await self.env.act(action, obs, effect_only=True)
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

    async def _action(self, i: int, step: Step, obs: Observation, at_once: bool = False) -> Action:
        """``at_once``: the targets must be found as recorded, else ``_NotYet``."""
        args = fill(step.args, self.values)
        if step.action == "navigate" and isinstance(url := args.get("url"), str):
            args["url"] = rebase(url, self.wf.start_url, self.start)
        target = await self._find(i, step, step.target, obs, at_once) if step.target is not None else None
        drop = await self._find(i, step, step.drop, obs, at_once) if step.drop is not None else None
        try:
            return parse_action(with_targets(step, args, target, drop))
        except ValidationError as exc:
            raise ReplayStepFailedError(
                f"step {i} ({step.intent}): {exc.errors()[0]['msg']}", step=i
            ) from None

    async def _find(self, i: int, step: Step, want: Fingerprint, obs: Observation, at_once: bool) -> int:
        els = [e for e in obs.elements if worth_a_look(want, e)] or [
            e for e in obs.elements if e.tag == want.tag or (want.role and e.role == want.role)
        ]
        els = els[:MAX_CANDIDATES]  # their fingerprints read in one call per frame
        fps = await self.env.fingerprints([el.index for el in els])
        candidates = [(el.index, fps[el.index]) for el in els if el.index in fps]
        match = pick(want, candidates)
        if at_once and not as_recorded(want, match):
            raise _NotYet
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

    def _history_is_the_models(self, step: Step) -> bool:
        """A goBack or goForward after a model healed a step: the tab's history holds the pages the model
        went through (another page of the catalogue, say), so going back lands where the model came from,
        not on the recorded URL; the step went back (or forward) as recorded: its action succeeded."""
        return step.action in HISTORY_ACTIONS and "healed" in self.out.by

    def _problems(self, step: Step, result: ActionResult) -> list[str]:
        """How the step's effect differs from the recorded one (nothing: it happened again)."""
        want = step.expect
        if want is None or not result.ok:
            return []
        url = self.env.current_url() or ""
        problems = []
        if want.url is not None and not self._history_is_the_models(step):
            pattern = fill(want.url, {k: quote_plus(v) for k, v in self.values.items()})
            if not url_matches(path_of(url), pattern):
                problems.append(f"the page is {path_of(url)}, not {want.url}")
        if want.value is not None and result.effects.value is not None:
            value = fill(want.value, self.values)
            if result.effects.value != value:
                problems.append(f"the field holds {result.effects.value!r}, not {value!r}")
        if want.new_tab and not result.effects.new_tabs:
            problems.append("no new tab opened")
        return problems


def _renamed(value: JsonValue, old: str, new: str) -> JsonValue:
    if isinstance(value, str):
        return value.replace("{" + old + "}", "{" + new + "}")
    if isinstance(value, dict):
        return {k: _renamed(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed(v, old, new) for v in value]
    return value


def _lines_of(run_dir: str | None) -> list[StepLine]:
    if run_dir is None:
        return []
    path = Path(run_dir) / "steps.jsonl"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return []
    return [json.loads(x) for x in text.splitlines() if x.strip()]
