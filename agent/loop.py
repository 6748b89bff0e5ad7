"""The planner loop: observe → prompt → model → parse → act (the env's gate, then its executor) → record,
until a stop. The loop owns the order; the browser side (context, snapshotter, executor, gate) is the
``BrowserEnv`` it is given or opens (agent/browser/env.py).

Stops are exceptions that carry their reason; the record is saved in ``finally``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import traceback
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

from kite_browser.agent.browser.actions import ACTION_NAMES, OBSERVE_ONLY, Action, Done, Navigate
from kite_browser.agent.browser.env import BrowserEnv, EnvSafety
from kite_browser.agent.browser.exec.base import TOGGLED
from kite_browser.agent.browser.observation import ActionResult, Element, ErrorInfo, Observation
from kite_browser.agent.browser.pool import BrowserPool
from kite_browser.agent.browser.session import ContextSession
from kite_browser.agent.browser.timing import StepTimer
from kite_browser.agent.browser.tokens import estimate_tokens
from kite_browser.agent.cancel import raise_if_cancelled
from kite_browser.agent.config import KiteConfig
from kite_browser.agent.errors import KiteError, UsageError
from kite_browser.agent.events import (
    ActionDecided,
    ActionFinished,
    EventSink,
    ModelReplied,
    ModelWaiting,
    PageObserved,
    ReplyRejected,
    RunFinished,
    RunStarted,
    TokenUsage,
    emit,
)
from kite_browser.agent.fence import defuse
from kite_browser.agent.guards import Guards, answer_now, said_no_effect
from kite_browser.agent.levels import ConfirmLevel
from kite_browser.agent.llm.chat import ChatMessage
from kite_browser.agent.llm.client import LLMReply
from kite_browser.agent.llm.errors import ContextWindowError, LLMError
from kite_browser.agent.llm.model import Model, ModelView, PastAction
from kite_browser.agent.llm.parsing import ParseError, parse_reply_async
from kite_browser.agent.llm.progress import progress_to
from kite_browser.agent.llm.reply_schema import reply_schema
from kite_browser.agent.llm.resolve import resolve_model
from kite_browser.agent.memory import Memory, add_note, describe_action, describe_result
from kite_browser.agent.model_setup import IMAGE_TOKENS, ModelSetup
from kite_browser.agent.modules.planner import module_toolset
from kite_browser.agent.outcome import build_result, current_url
from kite_browser.agent.output import OutputSpec, OutputType
from kite_browser.agent.prompt import PromptBuilder, kite_notices, page_text, warm_up
from kite_browser.agent.recap import answer_next, named_place, out_of_view, recap, sought
from kite_browser.agent.record import RunRecorder, RunResult
from kite_browser.agent.refusals import Refusals
from kite_browser.agent.repeats import REPEATED, Repeats
from kite_browser.agent.result import StopReason
from kite_browser.agent.step_record import ActionOutcome, GateOutcome, PageDigest, StepRecord
from kite_browser.agent.stop import Stop, StopWhen
from kite_browser.agent.tool_calls import ToolCalls
from kite_browser.agent.totals import Totals, ms_since
from kite_browser.agent.unfilled import UNFILLED, Unfilled
from kite_browser.safety.confirm import Confirmer, GateResult
from kite_browser.safety.output import redact_model, redacting_logs, redacting_sink
from kite_browser.safety.secrets import SecretStore

MAX_ACTIONS_PER_REPLY = 10
ANSWERING = OBSERVE_ONLY | {"done", "click", "scroll", "navigate", "goBack", "switchTab"}
"""What a constrained reply is offered once every part of the task but its answer is done (a click: on links)."""
HELD_BACK = frozenset({REPEATED, UNFILLED})
"""Errors of an action a rule of the run did not run (``agent/repeats.py``, ``agent/unfilled.py``): no failure."""
STAYING = OBSERVE_ONLY | {"done", "scroll"}
ANSWER_HERE_STEPS = 2
"""For this many steps once only the answer is left, a constrained reply is offered ``STAYING``: reading,
scrolling and ``done``, not leaving the page (recorded, sites subset at 180d35a: "search the shop for "mug" and
show the results" searched in one step, then on the results page clicked "Classic Blue Mug", "Kite Shop",
"Classic Blue Mug" ... for thirteen steps). Links come back after it, for an answer that is on another page."""
REFUSED_AS_STALE = frozenset({"stale_element"})
"""Errors of an action whose target is not on the page (an index from an older page, or made up)."""


class Agent:
    """Runs tasks in a browser. ``model`` answers each step (default: the one ``config.llm`` names); ``env``
    is where it acts (default: a new browser for each run, closed at its end)."""

    def __init__(
        self,
        config: KiteConfig,
        *,
        model: Model | None = None,
        env: BrowserEnv | None = None,
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
        ``data`` must match (agent/output.py); ``result.data`` is its JSON, ``result.output`` its value.
        ``env``: the environment to act in, left open (its gate, confirmer and secrets are the run's, so
        ``confirmer`` and ``secrets`` are then not given); ``context``: a browser context to act in (an env
        is made over it for each run and it is left open)."""
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
        self._fresh_run()

    def _fresh_run(self) -> None:
        """What one run accumulates; a second ``run()`` of the same Agent starts from zero."""
        self.history: list[PastAction] = []
        self.memory = Memory(full_steps=self.config.agent.history_full_steps)
        self.totals, self.steps_done, self.guards = Totals(), 0, Guards(self.config.agent)
        self.warnings: list[str] = []
        self.refusals = Refusals()
        self.repeats = Repeats()
        self.unfilled = Unfilled()
        self._stalled_answer = False
        self._answering: tuple[Observation | None, int] = (None, 0)
        """The last observation a reply schema was made for while only the answer was left, and how many."""
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
        )
        logs = redacting_logs(self.safety.secrets)  # log records of the run are redacted too
        logs.__enter__()
        warming = asyncio.ensure_future(asyncio.to_thread(warm_up, self.prompt, self.model.model))
        try:
            async with self._environment(rec.run_dir) as env:  # the browser starts while the prompt warms up
                ctx = env.ctx
                await self._prepare(env, task, start_url)
                await warming
                try:
                    if start_url:
                        await self._open(start_url)
                    for step in range(1, self.config.agent.max_steps + 1):
                        await self._step(step)
                        if self.stop_when is not None and (why := await self.stop_when(ctx)):
                            raise Stop(StopReason.TASK_ENDED, why)
                    raise Stop(
                        StopReason.MAX_STEPS, f"reached the limit of {self.config.agent.max_steps} steps"
                    )
                finally:
                    await self._wind_down(ctx)
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
            self.result = result
            rec.finish(result)
            await emit(self.on_event, RunFinished(step=self.steps_done, result=result))
        return result

    def _remember(self, past: Sequence[PastAction]) -> None:
        """``past`` as the run's history (the model's view) and its memory (the prompt's lines), step 0."""
        if not past:
            return
        self.history = list(past)
        self.memory.begin(0, "")
        for p in past:
            self.memory.add(p.line or str(p.action), None, None)

    @contextlib.asynccontextmanager
    async def _environment(self, run_dir: Path) -> AsyncIterator[BrowserEnv]:
        """The run's env: the one given (left open), one over the given context (left open), or one on a new
        browser of its own, closed at the end of the run."""
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

    async def _prepare(self, env: BrowserEnv, task: str, start_url: str | None) -> None:
        """The env ready for this run (its folder, the safety rules), the trace, the run record's header."""
        self.env, self.ctx, rec = env, env.ctx, self.recorder
        await env.start(rec.run_dir)
        self.blocks = env.blocks  # from what is blocked so far
        ctx = env.ctx
        if self.config.run.trace:
            await ctx.context.tracing.start(screenshots=True, snapshots=True)
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

    async def _wind_down(self, ctx: ContextSession) -> None:
        await self.env.stop()  # pending notifications delivered; a context the run was handed let go
        self.final_url = current_url(ctx)
        if self.config.run.screenshots:  # the page after the last step (each step's own shows it before)
            with contextlib.suppress(Exception):
                await ctx.page.screenshot(path=str(self.recorder.screenshots / "final.png"), timeout=3000)
        await self.tools.close()
        if self.config.run.trace:
            await ctx.context.tracing.stop(path=str(self.recorder.run_dir / "trace.zip"))

    async def _open(self, url: str) -> None:
        result = await self.env.executor.execute(Navigate(url=url))  # the user's own start URL
        self.recorder.step(
            StepRecord(step=0, actions=[ActionOutcome(action=Navigate(url=url).to_json(), result=result)])
        )
        if not result.ok:
            raise Stop.unreachable(url, result.error)

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
        self.warnings += (blocked := self.blocks.between())  # stopped while no action ran: the page's doing
        await emit(self.on_event, _page_observed(step, obs))
        with self.timer.phase("prompt"):
            messages, prompt_tokens = self._messages(obs, step)
        self.memory.begin(step, obs.url)
        page_digest = PageDigest.of(obs)
        record = StepRecord(
            step=step,
            url=obs.url,
            prompt_tokens_est=prompt_tokens,
            observation=page_digest,
            overhead_ms={"observe+prompt": ms_since(t0)},
            recovered=recovered,
            blocked=blocked,
        )
        try:
            await self._answer(record, messages, obs)
        finally:
            # "record": this step's writes so far and the previous step's line (this one's is written last)
            self.timer.add("record", self._recorded_ms)
            record.phases_ms = self.timer.rounded()
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
        raise_if_cancelled()  # a reply that beat Ctrl-C is recorded, not acted on (agent/cancel.py)
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
        if parsed.dropped:
            self.memory.add(
                f"your reply had {len(actions) + parsed.dropped} actions; only the first "
                f"{len(actions)} were considered"
            )
        for i, (action, note) in enumerate(zip(actions, parsed.notes or [""] * len(actions), strict=True)):
            self.warnings += (late := self.blocks.between())  # while the model thought
            record.blocked += late
            result, decision = await self._act(action, obs, step, note)
            record.actions.append(ActionOutcome(action=action.to_json(), decision=decision, result=result))
            record.overhead_ms["act"] = ms_since(t1)
            if isinstance(action, Done):  # ends the run, unless its data goes back to the model to fix
                self.output.settle(action, result)
            elif result.error is None or result.error.error not in HELD_BACK:  # held back: no failure
                any_error = any_error or not result.ok
            if not result.ok and i < len(actions) - 1:
                self.memory.add(
                    f"that action failed, so the remaining {len(actions) - 1 - i} action(s) of your reply "
                    "were not run"
                )
                break
            if (result.page_changed or TOGGLED in result.data) and i < len(actions) - 1:
                what = (
                    f"the click {result.data[TOGGLED]} a section"
                    if TOGGLED in result.data
                    else "the page changed"
                )
                self.memory.add(f"{what}, so the remaining {len(actions) - 1 - i} action(s) were not run")
                break
        self._check_loop(
            [(action, o.result) for action, o in zip(actions, record.actions, strict=False)], obs
        )
        self.guards.step_failed(any_error)

    def _check_loop(self, ran: list[tuple[Action, ActionResult | None]], obs: Observation) -> None:
        """The loop guard on the actions that ran; its warning for the next prompt."""
        answering = answer_next(self.prompt.task, self.history)
        # only the answer left, and this step only read, waited or did what changed nothing (a scroll at the
        # end): the next constrained reply is the answer (recorded at e64da2a: "search the shop for mug and show the results",
        # on the results, scrolled a page that could not move and waited, fifteen actions in two steps, then
        # left the results by a link)
        self._stalled_answer = (
            answering and bool(ran) and all(a.action in OBSERVE_ONLY or said_no_effect(r) for a, r in ran)
        )
        warning = self.guards.check_loop(ran, obs)
        if ((warning and self.guards.withheld) or self._stalled_answer) and answering:
            warning = answer_now(self.guards.repeats)  # the next schema offers done alone
        if warning:
            self.warnings.append(warning)

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
            repeating=self.guards.repeats >= self.config.agent.loop_warn,
            reply_schema=self._reply_schema(obs),
        )

        async def told(message: str) -> None:  # a slow call's progress: the queue ahead, the time expected
            await emit(self.on_event, ModelWaiting(step=step, message=message))

        with progress_to(told):
            try:
                with self.timer.phase("record"):
                    record.request = self.recorder.request(messages, tools, shot)
                with self.timer.phase("model"):
                    return await self.llm.complete(messages, tools, view=view)
            except ContextWindowError:
                with self.timer.phase("prompt"):
                    messages, _ = self._messages(obs, step, min_compaction=3)
                with self.timer.phase("record"):
                    record.request = self.recorder.request(messages, tools, shot)
                with self.timer.phase("model"):
                    return await self.llm.complete(messages, tools, view=view)

    def _reply_schema(self, obs: Observation) -> dict[str, Any] | None:
        """This step's reply schema when replies are constrained (the enabled actions on this page)."""
        if not self.model.constrained:
            return None
        withheld = self.guards.withheld
        futile = self.guards.futile
        everywhere = {name for name, index in futile if index is None}
        held = self.repeats.withheld(obs)
        if held.refresh:
            everywhere.add("refresh")
        enabled = [name for name in ACTION_NAMES if name not in withheld and name not in everywhere]
        links_only: list[tuple[str, int]] = []
        if answer_next(self.prompt.task, self.history):
            # every part done but the answer: what is offered reads, looks, follows links and answers; nothing
            # that changes the site (recorded: "search the shop for mug and show the results" opened a product
            # from the results and put it in the cart; the demo, on the cart page, clicked "Update" and
            # "Proceed to checkout")
            if self._answering[0] is not obs:
                self._answering = (obs, self._answering[1] + 1)
            here = self._answering[1] <= ANSWER_HERE_STEPS
            enabled = [n for n in enabled if n in (STAYING if here else ANSWERING)]
            links_only = [("click", e.index) for e in obs.elements if not e.href]
            if withheld or self._stalled_answer:  # read the same twice, or did nothing: the answer now
                enabled = ["done"]
        return reply_schema(
            obs,
            enabled,
            vision=self.model.vision,
            max_actions=MAX_ACTIONS_PER_REPLY,
            output_schema=self.output.schema,
            task=self.prompt.task,
            exclude=[
                *((name, index) for name, index in futile if index is not None),
                *held.pairs,
                *links_only,
            ],
            secrets=self.prompt.secret_names,
        )

    async def _act(
        self, action: Action, obs: Observation, step: int, repaired: str = ""
    ) -> tuple[ActionResult, GateOutcome]:
        element = obs.element(action.target_index) if action.target_index is not None else None
        described = describe_action(action, element)

        async def decided(_a: Action, _o: Observation | None, gate: GateResult) -> None:
            outcome = GateOutcome(
                level=str(gate.decision.level), reasons=list(gate.decision.reasons), allowed=gate.allowed
            )
            await emit(self.on_event, ActionDecided(step=step, action=described, **outcome.model_dump()))

        held = self.repeats.refusal(action, element, obs.url) or await self.unfilled.refusal(
            self.env, action, element, obs.url, self.repeats.edits
        )
        if held is not None:
            return await self._held_back(action, element, held, step, described)
        acted = await self.env.act(action, obs, decided=decided, veto=self.output.refuse, timer=self.timer)
        result, gate = acted.result, acted.gate
        decision = GateOutcome(
            level=str(gate.decision.level), reasons=list(gate.decision.reasons), allowed=gate.allowed
        )
        if (times := self.repeats.ran(action, element, result, step)) > 1:
            result.message = f"{result.message or 'clicked'} ({times} times in this run)"
        add_note(result, repaired)  # what the parser repaired to run it: the model learns the right form
        if result.error is not None and result.error.error in REFUSED_AS_STALE:
            self.totals.actions_refused += 1
        refused = acted.refused
        reason = gate.message or "; ".join(gate.decision.reasons)
        if refused is None and (late := Refusals.after_run(result)) is not None:
            refused, reason = late
        self.refusals.track(action, element, obs, step, described, refused, reason)
        return await self._noted(action, element, result, decision, step, described)

    async def _held_back(
        self, action: Action, element: Element | None, result: ActionResult, step: int, described: str
    ) -> tuple[ActionResult, GateOutcome]:
        """An action the repeat rule (``agent/repeats.py``) or the unfilled-form rule (``agent/unfilled.py``)
        did not run: neither judged nor run, only noted."""
        reason = result.error.error if result.error is not None else REPEATED
        decision = GateOutcome(level=ConfirmLevel.AUTO, reasons=[reason], allowed=False)
        return await self._noted(action, element, result, decision, step, described)

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

    def _messages(
        self, obs: Observation, step: int, min_compaction: int = 0
    ) -> tuple[list[ChatMessage], int]:
        system_tokens = estimate_tokens(self.model.model, self.prompt.system())  # cached after the first step
        fixed = system_tokens + self.model.tools_tokens + (IMAGE_TOKENS if obs.screenshot_b64 else 0)
        urls = {m.step: m.url for m in self.memory.steps if m.lines}
        task = self.prompt.task
        ours = [named_place(task, obs.url, urls.values()), out_of_view(task, obs, self.history)]
        notices = (
            *self.warnings,
            *kite_notices(obs),
            *self.repeats.withheld(obs).notices,
            *filter(None, ours),
        )
        warnings, self.warnings = [defuse(w) for w in notices], []
        layered = self.config.agent.observation == "layered"
        live = {e.index for e in obs.elements}
        notes = recap(self.prompt.task, self.history, urls, obs)
        for level in range(min_compaction, 5):
            history, results = self.memory.render(min(level, 3), live)
            elements_budget = max(120, self.config.snapshot.token_budget >> level)
            with self.timer.phase("render"):
                page = page_text(obs, layered=layered, budget_tokens=elements_budget)
            if level == 4:  # last resort: cut the page text to what fits
                room = max(200, (self.model.input_budget - fixed) * 3)
                page = page[: room // 2] + "\n… (page text cut to fit the model's input budget)"
            r = self.safety.secrets.redact  # the page and the steps; the task is the user's own words
            text = self.prompt.user(
                step=step,
                history=[r(h) for h in history],
                results=[r(x) for x in results],
                warnings=warnings,
                page=r(page),
                recap={k: [r(x) for x in v] for k, v in notes.items()},
            )
            total = fixed + estimate_tokens(self.model.model, text)
            if total <= self.model.input_budget:
                break
        return self.prompt.messages(text, obs.screenshot_b64), total

    def _result(self, stop: Stop, started: float) -> RunResult:
        run_dir, declined = str(self.recorder.run_dir), self.refusals.outstanding
        return build_result(stop, declined, self.totals, self.steps_done, started, run_dir, self.final_url)


def _page_observed(step: int, obs: Observation) -> PageObserved:
    """The run event for the page seen at ``step``."""
    return PageObserved(
        step=step,
        url=obs.url,
        title=obs.summary.title,
        screenshot=obs.screenshot_path,
        text=obs.summary.visible_text[:200],
    )
