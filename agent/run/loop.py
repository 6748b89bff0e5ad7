"""The planner loop: observe → prompt → model → parse → act (the env's gate, then its executor) → record,
until a stop. The loop owns the order; it acts only through the ``Environment`` protocol (agent/protocols.py),
given or opened. Stops are exceptions that carry their reason; the record is saved in ``finally``."""

from __future__ import annotations

import asyncio
import time
import traceback
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from kite_browser.agent.base import telemetry
from kite_browser.agent.base.cancel import raise_if_cancelled
from kite_browser.agent.base.errors import KiteError, UsageError
from kite_browser.agent.base.events import (
    ActionDecided,
    EventSink,
    ModelReplied,
    ModelWaiting,
    ReplyRejected,
    RunFinished,
    TokenUsage,
    emit,
)
from kite_browser.agent.base.fence import defuse
from kite_browser.agent.base.levels import ConfirmLevel
from kite_browser.agent.base.result import StopReason
from kite_browser.agent.browser.actions import ACTION_NAMES, Action, Done
from kite_browser.agent.browser.env import EnvSafety
from kite_browser.agent.browser.observation import ActionResult, ErrorInfo, Observation
from kite_browser.agent.browser.session import ContextSession
from kite_browser.agent.browser.timing import StepTimer
from kite_browser.agent.config import KiteConfig
from kite_browser.agent.llm.chat import ChatMessage
from kite_browser.agent.llm.client import LLMReply
from kite_browser.agent.llm.errors import ContextWindowError, LLMError
from kite_browser.agent.llm.model import Model, ModelView, PastAction
from kite_browser.agent.llm.parsing import ParseError, parse_reply_async
from kite_browser.agent.llm.progress import progress_to
from kite_browser.agent.llm.redaction import redacting
from kite_browser.agent.llm.reply_schema import reply_schema
from kite_browser.agent.llm.resolve import resolve_model
from kite_browser.agent.llm.traced import complete_traced
from kite_browser.agent.modules.planner import module_toolset
from kite_browser.agent.policies import Proposed, Ran, StepPlan, build
from kite_browser.agent.policies.recap import sought
from kite_browser.agent.protocols import Environment
from kite_browser.agent.run.ask_alone import ask_alone
from kite_browser.agent.run.env import RunEnvironment, page_observed
from kite_browser.agent.run.guards import Guards
from kite_browser.agent.run.memory import Memory, add_note, describe_action
from kite_browser.agent.run.model_setup import ModelSetup
from kite_browser.agent.run.outcome import end_span, open_run_span
from kite_browser.agent.run.output import OutputSpec, OutputType
from kite_browser.agent.run.prompt import PromptBuilder, kite_notices, warm_up
from kite_browser.agent.run.record import RunRecorder, RunResult
from kite_browser.agent.run.refusals import Refusals
from kite_browser.agent.run.step_prompt import fit_messages
from kite_browser.agent.run.step_record import ActionOutcome, GateOutcome, PageDigest, StepRecord
from kite_browser.agent.run.stop import OF_REPLY, Stop, StopWhen, cut_short, stop_if_nobody_took_over
from kite_browser.agent.run.tool_calls import ToolCalls
from kite_browser.agent.run.totals import Totals, ms_since
from kite_browser.safety.confirm import Confirmer, GateResult
from kite_browser.safety.output import redact_model, redacting_logs, redacting_sink
from kite_browser.safety.secrets import SecretStore

MAX_ACTIONS_PER_REPLY = 10


class Agent(RunEnvironment):
    """Runs tasks in a browser. ``model`` answers each step (default: the one ``config.llm`` names); ``env``
    is where it acts (default: a new browser for each run, closed at its end)."""

    def __init__(
        self,
        config: KiteConfig,
        *,
        model: Model | None = None,
        env: Environment | None = None,
        confirmer: Confirmer | None = None,
        context: ContextSession | None = None,
        secrets: SecretStore | None = None,
        on_event: EventSink | None = None,
        label: str | None = None,
        stop_when: StopWhen | None = None,
        tools: Sequence[Callable[..., object]] = (),
        output_type: OutputType = None,
    ) -> None:
        """``tools``: your own typed functions, offered to the model next to ``agent.module_tools``.
        ``output_type``: a pydantic model (any type pydantic validates) or a JSON schema dict that ``done``'s
        ``data`` must match (agent/run/output.py); ``result.data`` is its JSON, ``result.output`` its value.
        ``env``: the environment to act in (any ``Environment``), left open (its gate, confirmer and secrets
        are the run's, so ``confirmer`` and ``secrets`` are then not given); ``context``: a browser context to
        act in (a ``BrowserEnv`` is made over it for each run, left open); neither: a browser of its own."""
        if env is not None and (confirmer is not None or secrets is not None or context is not None):
            raise UsageError("Agent(env=...) brings its own confirmer, secrets and context: pass only env")
        if model is not None and config.llm.model != model.name:
            config = config.model_copy(update={"llm": config.llm.model_copy(update={"model": model.name})})
        self.config, self._given_context, self._given_env, self.label = config, context, env, label
        self.stop_when = stop_when
        self.output = OutputSpec(output_type, config.agent.output_retries)
        self.model = ModelSetup.from_config(config, self.output)
        self.safety = env.safety if env is not None else EnvSafety.from_config(config, confirmer, secrets)
        self.on_event = redacting_sink(self.safety.secrets, on_event)  # what leaves the run is redacted
        self.llm: Model = resolve_model(model, config.llm)
        self.tools = ToolCalls(module_toolset(config, self.safety.gate.confirmer, tools))
        telemetry.configure_from(config.telemetry)
        self._fresh_run()

    def _fresh_run(self) -> None:
        """What one run accumulates; a second ``run()`` of the same Agent starts from zero."""
        self.history: list[PastAction] = []
        self.memory = Memory(full_steps=self.config.agent.history_full_steps)
        self.totals, self.steps_done, self.guards = Totals(), 0, Guards(self.config.agent)
        self.warnings: list[str] = []
        self.refusals, self._said = Refusals(), dict[str, str]()
        m = self.model
        self.policies = build(
            self.config.agent, constrained=m.constrained, function_calling=m.function_calling
        )
        self.totals.policies_acted = dict.fromkeys(self.policies.names, 0)
        self.output.rejected = 0
        self.final_url: str | None = None
        self.result: RunResult | None = None
        self.timer, self._recorded_ms = StepTimer(), 0.0

    async def run(
        self, task: str, start_url: str | None = None, *, past: Sequence[PastAction] = ()
    ) -> RunResult:
        """Run ``task`` (opening ``start_url`` first when given). ``past``: actions already taken on this page
        before the run (a replayed workflow's steps, agent/workflow/heal.py): the model is shown them as its
        history, as if the run had taken them."""
        if not task or not task.strip():
            raise UsageError("the task is empty: say what Kite should do")
        rec = RunRecorder.create(self.config.run.runs_dir, self.safety.secrets.redact_obj, self.label)
        self.recorder, started, result = rec, time.monotonic(), None
        self._fresh_run()
        self._remember(past)
        self.prompt = PromptBuilder(
            task.strip(),
            self.config.agent.language,
            self.model.function_calling,
            self.model.vision,
            self.config.agent.observation,
            self.config.agent.max_steps,
            self.safety.secrets.names(),
            self.output.prompt(),
            constrained=self.model.constrained,
            own_notes="own_plan" in self.policies.names,
        )
        (logs := redacting_logs(self.safety.secrets)).__enter__()  # log records of the run are redacted too
        traced, span = open_run_span(task, self.model.model, self.label, self.safety, self.config.telemetry)
        warming = asyncio.ensure_future(asyncio.to_thread(warm_up, self.prompt, self.model.model))
        try:
            async with self._environment(rec.run_dir) as env:  # the browser starts while the prompt warms up
                await self._prepare(env, task, start_url)
                await warming
                try:
                    if start_url:
                        await self._open(start_url)
                    for step in range(1, self.config.agent.max_steps + 1):
                        with telemetry.span("kite.step", {"kite.step.number": step}):
                            await self._step(step)
                        if self.stop_when is not None and (why := await self.stop_when(env)):
                            raise Stop(StopReason.TASK_ENDED, why)
                    raise Stop(
                        StopReason.MAX_STEPS, f"reached the limit of {self.config.agent.max_steps} steps"
                    )
                finally:
                    await self._wind_down()
        except Stop as stop:
            result = self._result(stop, started)
        except (asyncio.CancelledError, KeyboardInterrupt):
            result = self._result(Stop(StopReason.INTERRUPTED, "stopped by the user"), started)
            raise
        except KiteError as exc:
            result = self._result(Stop(StopReason.ERROR, f"{exc.type}: {exc.message}"), started)
        except Exception as exc:  # a bug in Kite: keep the record, say what happened
            trace = self.safety.secrets.redact(traceback.format_exc())
            (rec.run_dir / "error.txt").write_text(trace, encoding="utf-8")
            result = self._result(Stop(StopReason.ERROR, f"internal error: {exc!r}"), started)
        finally:
            result = result or self._result(Stop(StopReason.ERROR, "run ended unexpectedly"), started)
            result = redact_model(self.safety.secrets, result)
            result.run_dir = str(rec.run_dir)  # the folder as it is (named after the label: a secret's value
            # may read like a word of it, and a redacted path names no folder)
            result.output = self.output.instance(result.data)
            logs.__exit__(None, None, None)
            end_span(traced, span, result)
            self.result = result
            rec.finish(result)
            await emit(self.on_event, RunFinished(step=self.steps_done, result=result))
        return result

    async def _step(self, step: int) -> None:
        self.steps_done, self.timer = step, StepTimer()
        t0 = time.perf_counter()
        shot = self.recorder.screenshots / f"step-{step:03d}.png" if self.config.run.screenshots else None
        with self.timer.phase("observe"):
            obs, recovered = await self.env.observe_guarded(
                screenshot_to=shot, want_b64=self.model.vision, wanted=sought(self.prompt.task)
            )
        if recovered:
            self.warnings.append(recovered)
        self.warnings += (blocked := self._page_news(step))  # stopped while no action ran: the page's doing
        await emit(self.on_event, page_observed(step, obs))
        with self.timer.phase("prompt"):
            urls = {m.step: m.url for m in self.memory.steps if m.lines}
            self._plan = self.policies.before(self.prompt.task, step, obs, self.history, urls)
            messages, prompt_tokens = self._messages(obs, step)
        self.memory.begin(step, obs.url)
        record = StepRecord(
            step=step,
            url=obs.url,
            prompt_tokens_est=prompt_tokens,
            observation=PageDigest.of(obs),
            overhead_ms={"observe+prompt": ms_since(t0)},
            recovered=recovered,
            blocked=blocked,
        )
        try:
            await self._answer(record, messages, obs)
        finally:
            # "record": this step's writes so far and the previous step's line (this one's is written last)
            self.timer.add("record", self._recorded_ms)
            record.phases_ms, record.policies = self.timer.rounded(), self.policies.acted
            self.totals.acted(list(self.policies.acted))
            t1 = time.perf_counter()
            self.recorder.step(record)  # once per step, however it ended
            self._recorded_ms = (time.perf_counter() - t1) * 1000

    async def _answer(self, record: StepRecord, messages: list[ChatMessage], obs: Observation) -> None:
        """Ask the model, parse its reply, run its actions; everything that happens goes into ``record``."""
        step = record.step
        try:
            reply = await self._complete(record, messages, obs)
        except LLMError as exc:
            record.error = ErrorInfo.model_validate(exc.to_dict())
            raise Stop(StopReason.MODEL_ERROR, f"{exc.type}: {exc.message}") from exc
        self.totals.add(reply.usage)
        record.reply, record.usage = reply, reply.usage
        raise_if_cancelled()  # a reply that beat Ctrl-C is recorded, not acted on (agent/base/cancel.py)
        usage = TokenUsage.model_validate(reply.usage.model_dump())
        await emit(self.on_event, ModelReplied(step=step, usage=usage, content=(reply.content or "")[:500]))
        self.guards.check_budgets(self.totals)
        t1 = time.perf_counter()
        with self.timer.phase("parse"):
            calls, reply = self.tools.split(reply)
        with self.timer.phase("act"):
            record.tools = [await self.tools.run(c, step, self.memory.add, self.on_event) for c in calls]
        try:
            with self.timer.phase("parse"):
                parsed = await parse_reply_async(reply, max_actions=MAX_ACTIONS_PER_REPLY)
        except ParseError as exc:
            if calls and not reply.tool_calls:  # the module tools were this step's actions
                return None
            self.memory.add(f"your reply could not be used: {exc.message}", "reply not understood")
            self.totals.replies_rejected += 1
            await emit(self.on_event, ReplyRejected(step=step, error=exc.type, message=exc.message))
            record.parse_error = ErrorInfo.model_validate(exc.to_dict())
            return self.guards.step_failed(True)
        actions, any_error, record.thought = parsed.actions, False, parsed.thought
        record.said = self._said = parsed.said
        if parsed.dropped:
            self.memory.add(
                f"your reply had {len(actions) + parsed.dropped} actions; only the first "
                f"{len(actions)} were considered"
            )
        ran: list[tuple[Action, ActionResult]] = []
        left = len(actions) - 1
        for i, (action, note) in enumerate(zip(actions, parsed.notes or [""] * len(actions), strict=True)):
            self.warnings += (late := self._page_news(step))  # while the model thought
            record.blocked += late
            result = await self._act(action, obs, record, note, ran, last=i == left)
            ran.append((action, result))
            record.overhead_ms["act"] = ms_since(t1)
            stop_if_nobody_took_over(result)
            if isinstance(action, Done):  # ends the run, unless its data goes back to the model to fix
                self.output.settle(action, result)
            elif result.error is None or result.error.error not in self.policies.held_as:  # held: no failure
                any_error = any_error or not result.ok
            if i < left and (cut := cut_short(result)):
                self.memory.add(
                    f"{cut}, so the remaining {left - i} action(s){OF_REPLY[result.ok]} were not run"
                )
                break
        self.guards.step_failed(any_error)

    async def _complete(self, record: StepRecord, messages: list[ChatMessage], obs: Observation) -> LLMReply:
        step, tools, shot = record.step, self.model.tools, obs.screenshot_path
        view = ModelView(
            task=self.prompt.task,
            step=step,
            max_steps=self.config.agent.max_steps,
            language=self.config.agent.language,
            observation=obs,
            tools=self.model.tools,
            history=list(self.history),
            output_schema=self.output.schema,
            repeating=self._plan.notes.repeating,
            reply_schema=self._reply_schema(obs, self._plan),
        )
        ask = partial(complete_traced, self.llm, view=view, redact=self.safety.secrets.redact)

        async def told(message: str) -> None:  # a slow call's progress: the queue ahead, the time expected
            await emit(self.on_event, ModelWaiting(step=step, message=message))

        with progress_to(told), redacting(self.safety.secrets.redact if len(self.safety.secrets) else None):
            if (part := self._plan.notes.question) is not None:  # asked alone first: its "yes" is the reply
                with self.timer.phase("model"):
                    asked = await ask_alone(
                        self.llm, self.prompt.task, part, obs, view.language, self.safety.secrets.redact
                    )
                record.asked = asked.record
                if (done := asked.as_done()) is not None:
                    return done
                self.totals.add(asked.reply.usage)
            try:
                with self.timer.phase("record"):
                    record.request = self.recorder.request(messages, tools, shot)
                with self.timer.phase("model"):
                    return await ask(messages, tools)
            except ContextWindowError:
                with self.timer.phase("prompt"):
                    messages, _ = self._messages(obs, step, min_compaction=3)
                with self.timer.phase("record"):
                    record.request = self.recorder.request(messages, tools, shot)
                with self.timer.phase("model"):
                    return await ask(messages, tools)

    def _reply_schema(self, obs: Observation, plan: StepPlan) -> dict[str, Any] | None:
        """This step's reply schema when replies are constrained: every action but what the policies withhold
        on this page (each withheld for a fact of the page or the run)."""
        if not self.model.constrained:
            return None
        return reply_schema(
            obs,
            [name for name in ACTION_NAMES if name not in plan.withheld.names],
            vision=self.model.vision,
            max_actions=MAX_ACTIONS_PER_REPLY,
            output_schema=self.output.schema,
            task=self.prompt.task,
            exclude=plan.withheld.pairs,
            secrets=self.prompt.secret_names,
            notes=plan.notes.ask,
        )

    async def _act(
        self,
        action: Action,
        obs: Observation,
        record: StepRecord,
        repaired: str,
        earlier: list[tuple[Action, ActionResult]],
        last: bool,
    ) -> ActionResult:
        """One action of the reply: the policies' refusal or the env's gate and run; the policies learn its
        result, which goes into the memory, the history, the events and ``record``."""
        step, index = record.step, action.target_index
        element = obs.element(index) if index is not None else None
        described = describe_action(action, element)

        async def decided(_a: Action, _o: Observation | None, gate: GateResult) -> None:
            outcome = GateOutcome(
                level=str(gate.decision.level), reasons=list(gate.decision.reasons), allowed=gate.allowed
            )
            await emit(self.on_event, ActionDecided(step=step, action=described, **outcome.model_dump()))

        held = await self.policies.refuse(Proposed(action, element, obs, step, list(earlier), self.env))
        if held is not None:  # neither judged nor run, only noted
            reason = held.error.error if held.error is not None else "dropped"
            result, decision = held, GateOutcome(level=ConfirmLevel.AUTO, reasons=[reason], allowed=False)
        else:
            result, decision = await self._run(action, element, obs, step, described, decided)
        try:
            ran = [*earlier, (action, result)]
            self.policies.learn(
                Ran(action, element, result, obs, step, last or bool(cut_short(result)), ran, self._said)
            )
        finally:
            add_note(result, repaired)  # what the parser repaired to run it: the model learns the right form
            await self._noted(action, element, result, decision, step, described)
            record.actions.append(ActionOutcome(action=action.to_json(), decision=decision, result=result))
        return result

    def _messages(
        self, obs: Observation, step: int, min_compaction: int = 0
    ) -> tuple[list[ChatMessage], int]:
        """The step's messages, compacted to fit the model's input budget: the run's warnings and the
        policies' notes in its Attention section, their recap in its Progress section."""
        notices = (*self.warnings, *kite_notices(obs), *self._plan.notes.lines)
        warnings, self.warnings = [defuse(w) for w in notices], []
        return fit_messages(
            self.prompt, self.model, self.memory, self.config, self.safety.secrets.redact, self.timer,
            obs, step, warnings, self._plan.notes.recap, min_compaction,
        )  # fmt: skip
