"""BrowserEnv: the one place that puts a browser context, a snapshotter, the action executor and the safety
gate together. Every face acts through it: the agent's loop, ``kite mcp`` (one env per client session), the
``browser`` module, ``kite serve``'s and ``kite batch``'s runs.

* ``observe()``: the active tab's observation (tabs and the pending dialog filled in), under the step deadline
  and the hang watchdog;
* ``act(action, observation)``: the gate judges the action (block / confirm / notify), then the executor runs
  it with the gate's second look at the target right before the input lands (``Gate.recheck``); a refused
  action is a typed ``blocked`` / ``declined`` result, never run;
* ``close()``: closes the context when the env opened it.

Its context is held to the same ``ContextRules`` everywhere (``BrowserPool.apply``): the domain policy on the
network, and the gate judging each confirm/prompt/beforeunload dialog.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TypeVar

from playwright.async_api import Browser, ElementHandle
from playwright.async_api import Error as PlaywrightError

from kite_browser.agent.base import telemetry
from kite_browser.agent.browser.actions import Action, AskHuman, Navigate
from kite_browser.agent.browser.context import ContextSession
from kite_browser.agent.browser.exec.human import NEEDS_HUMAN
from kite_browser.agent.browser.exec.reading import Read
from kite_browser.agent.browser.executor import ActionExecutor
from kite_browser.agent.browser.extractor_call import id_of
from kite_browser.agent.browser.fingerprint import (
    FINGERPRINT_JS,
    drag_ends,
    element_index,
    fingerprint_from,
)
from kite_browser.agent.browser.holds import PausedRequest, RequestHold, Verdict
from kite_browser.agent.browser.observation import (
    ActionResult,
    DialogInfo,
    Element,
    ErrorInfo,
    Fingerprint,
    HeldRequest,
    Observation,
)
from kite_browser.agent.browser.pool import BrowserPool, ContextRules, apply_rules
from kite_browser.agent.browser.session import BrowserSession
from kite_browser.agent.browser.snapshot import Snapshotter
from kite_browser.agent.browser.timing import StepTimer
from kite_browser.agent.browser.watchdog import PageUnresponsiveError, guard
from kite_browser.agent.config import BrowserConfig, KiteConfig
from kite_browser.safety.confirm import BY_CONFIG, NO_CONFIRMER, BatchConfirmer, Confirmer, Gate, GateResult
from kite_browser.safety.domains import DomainPolicy
from kite_browser.safety.handover import HandOverRequest, person_of
from kite_browser.safety.policy import SafetyPolicy
from kite_browser.safety.secrets import PLACEHOLDER_RE, SecretStore

T = TypeVar("T")
REFUSED = ("declined", "blocked")
"""How a held request that never reached the server was handled."""


@dataclass
class EnvSafety:
    """The safety an env applies: the policy, the gate that applies its decisions, the secrets, and the domain
    policy (the action policy's own, also enforced on the network; None when it has no lists)."""

    policy: SafetyPolicy
    gate: Gate
    secrets: SecretStore
    domains: DomainPolicy | None = None
    max_download_mb: float | None = None
    """The download cap (``browser.max_download_mb``); None leaves each context's own."""
    max_download_total_mb: float | None = None
    """The cap on a run's downloads together (``browser.max_download_total_mb``); None: each context's own."""

    @classmethod
    def from_config(
        cls,
        config: KiteConfig,
        confirmer: Confirmer | None = None,
        secrets: SecretStore | None = None,
        policy: SafetyPolicy | None = None,
    ) -> EnvSafety:
        """``confirmer``: who is asked (default: nobody, ``safety.approve`` decides); ``policy``:
        one already built (it compiles many patterns: faces with many envs build it once)."""
        secrets = secrets or SecretStore.from_sources(config.safety)
        policy = policy or SafetyPolicy.from_config(config.safety, secret_names=secrets.names())
        confirmer = confirmer or BatchConfirmer(config.safety.approve, nobody=NO_CONFIRMER, allow=BY_CONFIG)
        domains = policy.domains if policy.domains.active else None
        browser = config.browser
        return cls(
            policy,
            Gate(policy, confirmer),
            secrets,
            domains,
            browser.max_download_mb,
            browser.max_download_total_mb,
        )

    def rules(self) -> ContextRules:
        """What a context is held to: the domain policy, the gate on its dialogs, secrets out of file names
        and of downloaded files' content, the download cap."""
        gate, redact = self.gate, self.secrets.redact

        async def judge(info: DialogInfo, url: str) -> tuple[bool, str] | None:
            return await gate.check_dialog(info.type, info.message, url)

        async def judge_request(r: PausedRequest) -> Verdict:
            return await gate.check_request(r.method, r.url, r.kind, r.view, r.page_url, covered=r.covered)

        return ContextRules(
            network=self.domains,
            dialog_judge=judge,
            request_judge=judge_request,
            name_filter=lambda name: PLACEHOLDER_RE.sub(r"secret-\1", redact(name)),
            secret_scan=self.secrets if len(self.secrets) else None,
            max_download_mb=self.max_download_mb,
            max_download_total_mb=self.max_download_total_mb,
        )


@dataclass
class Acted:
    """What ``BrowserEnv.act`` did: the gate's verdict and the action's result (a refused action's result
    is a typed ``blocked`` / ``declined`` error)."""

    result: ActionResult
    gate: GateResult

    @property
    def refused(self) -> str | None:
        """``blocked`` / ``declined`` when the gate refused the action, else None."""
        return self.gate.refused


Decided = Callable[[Action, Observation | None, GateResult], Awaitable[None]]
"""Called after the gate decided and before anything runs (a face records the decision, or stops here)."""
Veto = Callable[[Action], ActionResult | None]
"""Asked before an allowed action runs: a result instead of running it (the loop's ``done`` data check)."""


@dataclass
class BlockWatch:
    """Tells where the domain policy stopped a request, or the request hold held one (``holds``): during an
    action (named in its result), or between two steps, by the page on its own (a timer's ``location``
    change, a late meta refresh, a timer's post)."""

    domains: DomainPolicy | None
    holds: RequestHold | None = None
    seen: int = field(default=0)
    seen_held: int = field(default=0)
    late_held: list[HeldRequest] = field(default_factory=list)
    """The requests held and refused between two actions, not yet taken (``take_held``)."""

    def __post_init__(self) -> None:
        self.mark()

    def mark(self) -> None:
        self.seen = len(self.domains.blocked_log) if self.domains is not None else 0
        self.seen_held = len(self.holds.log) if self.holds is not None else 0

    def _new_held(self) -> list[HeldRequest]:
        return self.holds.log[self.seen_held :] if self.holds is not None else []

    def annotate(self, result: ActionResult) -> None:
        """Name the latest block since the last look in the action's result, and the requests held while it
        ran in its effects (a refused one in its message too)."""
        notes = []
        if self.domains is not None and (note := self.domains.last_block_message(since=self.seen)):
            notes.append(note)
        result.effects.held = self._new_held()
        notes += [
            f"{h.describe()} was held and {h.handled}: {h.reason}"
            for h in result.effects.held
            if h.handled in REFUSED
        ]
        if notes:
            note = "; ".join(notes)
            if result.error is not None:
                result.error.message = f"{note}: {result.error.message}"
            else:
                result.message = f"{note}. {result.message}".strip()
        self.mark()

    def between(self) -> list[str]:
        """What was stopped or held since the last action ended (the page's own doing), once each."""
        new = self.domains.blocked_log[self.seen :] if self.domains is not None else []
        held = [h for h in self._new_held() if h.handled in REFUSED]
        self.late_held += held
        self.mark()
        return [
            f"after the last action the page tried to load {b.url[:160]} on its own: blocked by the domain "
            f"policy ({b.reason})"
            for b in new
        ] + [
            f"after the last action the page sent {h.describe()} on its own: {h.handled}, {h.reason}"
            for h in held
        ]

    def take_held(self) -> list[HeldRequest]:
        """The requests held and refused between two actions since the last call (each once)."""
        held, self.late_held = self.late_held, []
        return held


class BrowserEnv:
    """One context with its snapshotter, executor and gate. Make one with ``await BrowserEnv.open(pool, ...)``
    (a new context of the pool's shared browser), or ``BrowserEnv(config, ctx, safety)`` over a context you
    hold (it applies the safety's rules to it and leaves it open at ``close()``)."""

    def __init__(
        self,
        config: KiteConfig,
        ctx: ContextSession,
        safety: EnvSafety,
        *,
        run_dir: Path | None = None,
        owns_context: bool = False,
        rules_applied: bool = False,
    ) -> None:
        self.config, self.ctx, self.safety = config, ctx, safety
        self.owns_context = owns_context
        self.snapshotter = Snapshotter(config.snapshot)
        ctx.holds.view = self.snapshotter.last  # the held request's page, as the model and the policy saw it
        self.blocks = BlockWatch(safety.domains, ctx.holds)
        self.run_dir = run_dir
        self.executor = self._executor()
        self._rules_applied = rules_applied
        self.session: BrowserSession | None = None
        """The browser of its own the env was opened on (``open_browser``), closed with the env."""

    @classmethod
    async def open(
        cls,
        pool: BrowserPool,
        config: KiteConfig,
        safety: EnvSafety,
        *,
        run_dir: Path | None = None,
        default: bool = False,
        downloads_dir: Path | None = None,
    ) -> BrowserEnv:
        """An env on a new context of the pool's shared browser (``default``: on the browser's default
        context, shared with its other users), held to the safety's rules; ``close()`` closes a new one."""
        downloads = downloads_dir or (run_dir / "downloads" if run_dir is not None else None)
        ctx = await pool.context(safety.rules(), downloads_dir=downloads, default=default)
        return cls(config, ctx, safety, run_dir=run_dir, owns_context=not default, rules_applied=True)

    @classmethod
    async def on_raw(
        cls, pool: BrowserPool, browser: Browser, config: KiteConfig, safety: EnvSafety
    ) -> BrowserEnv:
        """An env on a new context of a raw browser (``pool.launch``: a tool module's own Chromium), held to
        the safety's rules; ``close()`` closes that context (the browser is left to its owner)."""
        ctx = await pool.raw_context(browser, safety.rules())
        return cls(config, ctx, safety, owns_context=True, rules_applied=True)

    @classmethod
    async def open_browser(
        cls, pool: BrowserPool, config: KiteConfig, safety: EnvSafety, browser: BrowserConfig | None = None
    ) -> BrowserEnv:
        """An env on a browser of its own (``browser``: sandbox, profile or attach; default the config's),
        on its default context held to the safety's rules; ``close()`` closes that browser."""
        session = await pool.session(browser or config.browser, rules=safety.rules())
        env = cls(config, session.context, safety, rules_applied=True)
        env.session = session
        return env

    @property
    def alive(self) -> bool:
        """The env's context (and its own browser, if it has one) can still be used."""
        if self.session is not None and not self.session.is_alive:
            return False
        return self.ctx.is_alive

    def _executor(self) -> ActionExecutor:
        return ActionExecutor(
            self.ctx,
            self.snapshotter,
            self.config,
            run_dir=self.run_dir,
            secret_resolver=self.safety.secrets.resolve,
        )

    @property
    def gate(self) -> Gate:
        return self.safety.gate

    async def start(self, run_dir: Path | None = None) -> None:
        """Get ready for a run: its folder (downloads, screenshots of the ``screenshot`` action) and, for a
        context the env was handed, the safety's rules (network, dialogs, file names)."""
        if run_dir is not None:
            self.run_dir = run_dir
            self.ctx.downloads_dir = run_dir / "downloads"
            self.executor = self._executor()
        if not self._rules_applied:
            await apply_rules(self.ctx, self.safety.rules())
            self._rules_applied = True
        self.blocks.mark()

    async def stop(self) -> None:
        """The end of a run: the gate's notifications delivered, the dialog judge and name filter taken off
        a context the env was handed (its owner may hand it to someone else)."""
        await self.gate.flush()
        if not self.owns_context:
            await apply_rules(self.ctx, ContextRules(network=None))
            self._rules_applied = False

    # ------------------------------------------------------------------ observe
    async def observe(
        self,
        *,
        screenshot_to: Path | None = None,
        want_b64: bool = False,
        include_all: bool = False,
        whole_flow: bool = False,
        flow_chars: int | None = None,
        wanted: Sequence[str] = (),
    ) -> Observation:
        """The active tab as the model sees it (tabs and the pending dialog filled in), with a screenshot
        saved to ``screenshot_to`` and/or in the observation as base64; ``include_all``, ``whole_flow``,
        ``flow_chars`` and ``wanted`` as ``Snapshotter.snapshot`` takes them."""
        ctx = self.ctx
        page = ctx.page
        obs = await self.snapshotter.snapshot(
            page, include_all=include_all, whole_flow=whole_flow, flow_chars=flow_chars, wanted=wanted
        )
        obs.summary.tabs = await ctx.tabs(known={page: obs.summary.title})  # the snapshot read its title
        obs.summary.dialog = ctx.pending_dialog
        if screenshot_to is not None or want_b64:
            with contextlib.suppress(Exception):
                path = str(screenshot_to) if screenshot_to is not None else None
                png = await page.screenshot(type="png", timeout=5000, path=path)
                obs.screenshot_path = path
                if want_b64:
                    obs.screenshot_b64 = base64.b64encode(png).decode()
        return obs

    async def observe_guarded(
        self, *, screenshot_to: Path | None = None, want_b64: bool = False, wanted: Sequence[str] = ()
    ) -> tuple[Observation, str | None]:
        """``observe`` under the step deadline and the hang watchdog. A stuck tab is closed and the page now
        active observed instead; the second value then says what happened (for the model). A deadline or a
        tab that cannot be closed raises."""

        async def once() -> Observation:
            return await self.guarded(
                self.observe(screenshot_to=screenshot_to, want_b64=want_b64, wanted=wanted),
                what="the observation",
            )

        try:
            return await once(), None
        except PageUnresponsiveError as exc:
            return await once(), exc.message

    async def guarded(self, call: Awaitable[T], *, what: str, deadline_s: float | None = None) -> T:
        """Run ``call`` (work on the active tab) under the hang watchdog and a deadline (default
        ``browser.step_timeout_ms``): a renderer stuck in a script makes the tab closed and
        ``PageUnresponsiveError`` raised within ``browser.hang_timeout_ms`` instead of a call that never
        ends. The rule every face's page work runs under (the loop's observation, the executor's actions, the
        chrome tools)."""
        cfg = self.config.browser
        return await guard(
            self.ctx,
            call,
            what=what,
            deadline_s=deadline_s if deadline_s is not None else cfg.step_timeout_ms / 1000,
            hang_s=cfg.hang_timeout_ms / 1000,
        )

    async def _briefly(self, call: Awaitable[T]) -> T | None:
        """A lookup that only informs an action (which element an index is, its fingerprint): None when the
        tab does not answer within ``browser.hang_timeout_ms``; the action's own guarded run then finds out
        whether the tab is stuck."""
        try:
            return await asyncio.wait_for(call, self.config.browser.hang_timeout_ms / 1000)
        except TimeoutError:
            return None

    async def quiet(self, fresh: bool = True) -> None:
        """Wait for the active tab's own loading (``Settler.quiet``; ``fresh``: its document is one a
        navigation opened), under the step deadline and the hang watchdog: what an ``effect_only`` action
        left."""
        page = self.ctx.page
        await self.guarded(self.executor.settler.quiet(page, fresh), what="the page's loading")

    async def reach(self, matches: Callable[[str], bool]) -> bool:
        """Wait (up to ``waits.settle_cap_ms``) for the active tab to load a URL that ``matches``, then for
        its loading (``quiet``): a navigation an action set off that its settle did not see begin. False
        when none came."""
        page = self.ctx.page
        try:
            await page.wait_for_url(matches, wait_until="load", timeout=self.config.waits.settle_cap_ms)
        except PlaywrightError:
            return False
        await self.quiet()
        return True

    async def latest(self) -> Observation:
        """The last observation of the active tab if it is still of the current URL, else a fresh one."""
        page = self.ctx.page
        last = self.snapshotter.last(page)
        if last is not None and last.url == page.url:
            return last
        return await self.observe()

    async def index_of(self, handle: ElementHandle) -> int | None:
        """The index the latest observation of the active tab gave the element behind ``handle`` (a face
        that finds its target by selector acts on it by index, so it gets the second look); None when the
        element is not listed."""
        page = self.ctx.page
        try:
            got = await self._briefly(id_of(page.main_frame, handle))
        except PlaywrightError:
            return None
        if got is None:
            return None
        return self.snapshotter.index_keys(page).get(got)

    async def fingerprint(self, index: int) -> Fingerprint | None:
        """The fingerprint of the element behind ``index`` in the active tab (agent/browser/fingerprint.py);
        None when that index is no longer in the page."""
        return (await self.fingerprints([index])).get(index)

    async def read_each(self, indexes: list[int], js: str) -> dict[int, object]:
        """``js`` (a read-only function expression of an element) on the element behind each of ``indexes``
        in the active tab, one call per frame: its answer per index. Indexes whose element is gone, or that
        the tab did not answer for in time, are left out."""
        try:
            got = await self._briefly(self.snapshotter.read_each(self.ctx.page, indexes, js))
        except PlaywrightError:
            return {}
        return got or {}

    async def fingerprints(self, indexes: list[int]) -> dict[int, Fingerprint]:
        """``fingerprint`` of each of ``indexes`` in one call per frame (a replay's candidates): the indexes
        whose element is gone, or that the tab did not answer for in time, are left out."""
        page = self.ctx.page
        out: dict[int, Fingerprint] = {}
        for index, raw in (await self.read_each(indexes, FINGERPRINT_JS)).items():
            element = self.snapshotter.element(page, index)
            fp = fingerprint_from(raw, element) if element is not None else None
            if fp is not None:
                out[index] = fp
        return out

    async def open_url(self, url: str, *, effect_only: bool = False) -> ActionResult:
        """Open ``url`` in the active tab past the gate: the user's own start URL, never a model's
        (``effect_only``: as ``ActionExecutor.execute`` takes it)."""
        return await self.executor.execute(Navigate(url=url), effect_only=effect_only)

    async def read_page(self) -> ActionResult:
        """The active page's text as the ``read`` action gives it (``data["text"]``), past the gate: a
        look that changes nothing (a replay's answer read again)."""
        return await self.executor.execute(Read(), effect_only=True)

    def blocked_between(self) -> list[str]:
        """``BlockWatch.between``: what was stopped or held since the last action ended, once each."""
        return self.blocks.between()

    def held_between(self) -> list[HeldRequest]:
        """``BlockWatch.take_held``: the requests held and refused between two actions, once each."""
        return self.blocks.take_held()

    def current_url(self) -> str | None:
        """The active page's URL, or None when the context is gone."""
        try:
            return self.ctx.page.url if self.ctx.is_alive else None
        except Exception:
            return None

    async def screenshot(self, path: Path) -> bool:
        """A screenshot of the active page saved to ``path`` (3 s at most); False when none could be
        taken."""
        try:
            await self.ctx.page.screenshot(path=str(path), timeout=3000)
        except Exception:
            return False
        return True

    async def start_trace(self) -> None:
        """Start the context's Playwright trace (screenshots and DOM snapshots)."""
        await self.ctx.context.tracing.start(screenshots=True, snapshots=True)

    async def stop_trace(self, path: Path) -> None:
        """Stop the context's Playwright trace and save it to ``path``."""
        await self.ctx.context.tracing.stop(path=str(path))

    # ------------------------------------------------------------------ act
    async def act(
        self,
        action: Action,
        observation: Observation | None = None,
        *,
        decided: Decided | None = None,
        veto: Veto | None = None,
        confirmer: Confirmer | None = None,
        timer: StepTimer | None = None,
        effect_only: bool = False,
        judged: GateResult | None = None,
    ) -> Acted:
        """``_act`` in an OpenTelemetry span (when telemetry is on): the action's kind and target, the gate's
        level and decision, the verified effect. Every face acts through here, so each has the span."""
        index = element_index(action)
        target = observation.element(index) if observation is not None and index is not None else None
        with telemetry.span(f"kite.action {action.action}", _target_attributes(action, target, self)) as span:
            acted = await self._act(
                action,
                observation,
                decided=decided,
                veto=veto,
                confirmer=confirmer,
                timer=timer,
                effect_only=effect_only,
                judged=judged,
            )
            span.set(_acted_attributes(acted, self.safety.secrets.redact))
            if not acted.result.ok:
                span.fail(acted.result.error.error if acted.result.error else "failed")
            return acted

    async def _act(
        self,
        action: Action,
        observation: Observation | None = None,
        *,
        decided: Decided | None = None,
        veto: Veto | None = None,
        confirmer: Confirmer | None = None,
        timer: StepTimer | None = None,
        effect_only: bool = False,
        judged: GateResult | None = None,
    ) -> Acted:
        """Judge ``action`` (on ``observation``, the page the caller saw), then run it with the second look
        at its target; a refused action is not run. ``decided`` and ``veto``: see their types;
        ``confirmer``: who is asked for this action (default: the gate's); ``timer``: the caller's step
        clock, given the gate, act and settle phases; ``effect_only``: the action's settle waits for what
        it set off, not for the page's own loading (a workflow's replay: ``ActionExecutor.execute``). The
        result keeps its target's fingerprint, taken right before the action ran (what a workflow's replay
        finds it again by); a refused action's and a drag's ends' too (a workflow keeps a refused step,
        replayed through the gate again). ``judged``: the gate's verdict on this action, already given (a
        gated toolset's call, ``safety/toolset.py``): not judged again."""
        timer = timer or StepTimer()
        with timer.phase("gate"):
            gate = judged or await self.gate.check(action, observation, confirmer)
        if decided is not None:
            await decided(action, observation, gate)
        if gate.refused is not None:
            error = ErrorInfo(error=gate.refused, message=gate.message)
            index = element_index(action)
            target = await self.fingerprint(index) if index is not None else None
            refused = ActionResult(action=action.action, ok=False, error=error, target=target)
            return Acted(await self._with_drag_ends(action, refused), gate)
        result = veto(action) if veto is not None else None
        if result is None and isinstance(action, AskHuman):
            result = await self._hand_over(action, confirmer or self.gate.confirmer)
        if result is None:
            again = partial(self.gate.recheck, action, observation, gate.decision, confirmer=confirmer)
            self.blocks.mark()
            ends = await self._with_drag_ends(action, ActionResult(action=action.action, ok=False))
            approved = (gate.answer is not None and gate.answer.approved) or gate.similar
            covering = self.ctx.holds.covering() if approved else contextlib.nullcontext()
            with timer.phase("act"), covering:  # an approval covers the requests the action sends
                result = await self.executor.execute(
                    action, recheck=again, fingerprint=True, effect_only=effect_only
                )
            timer.take("act", float(result.data.get("settle_ms") or 0.0), "settle")
            self.blocks.annotate(result)
            result.target, result.drop = result.target or ends.target, ends.drop
        return Acted(result, gate)

    async def _hand_over(self, action: AskHuman, confirmer: Confirmer) -> ActionResult:
        """The browser handed to the run's person and taken back (``safety/handover.py``); ``needs_human``
        when nobody can take over here. What the person typed into the page's fields is added to the values
        redacted from everything that leaves the run: the model and the record never see it."""
        person = person_of(confirmer)
        url = self.ctx.page.url
        if person is None:
            error = ErrorInfo(
                error=NEEDS_HUMAN,
                message=f"a person is needed ({action.question}) and nobody can take over in this run",
            )
            return ActionResult(action=action.action, ok=False, error=error)
        before = await self._typed_values()
        started = time.monotonic()
        back = await person.hand_over(HandOverRequest(question=action.question, url=url))
        seconds = round(time.monotonic() - started, 1)
        for value in (await self._typed_values()) - before:
            self.safety.secrets.hide(value)
        data = {"human_s": seconds, "handed_back": back.done}
        if back.done:
            said = f"a person took over for {seconds:g} s and handed the browser back; look at the page again"
            return ActionResult(action=action.action, ok=True, message=said, data=data)
        why = f": {back.reason}" if back.reason else ""
        error = ErrorInfo(error=NEEDS_HUMAN, message=f"the person could not do it{why}")
        return ActionResult(action=action.action, ok=False, error=error, data=data)

    async def _typed_values(self) -> set[str]:
        """The values of the page's editable fields (passwords come masked), to tell what a person typed."""
        with contextlib.suppress(Exception):
            obs = await self.observe()
            return {e.value for e in obs.elements if e.editable and e.value}
        return set()

    async def _with_drag_ends(self, action: Action, result: ActionResult) -> ActionResult:
        """``result`` with a drag's ends' fingerprints (taken before the drag moves them); as it is for
        other actions."""
        start, end = drag_ends(action)
        if start is not None:
            result.target = await self.fingerprint(start)
        if end is not None:
            result.drop = await self.fingerprint(end)
        return result

    # ------------------------------------------------------------------ the end
    async def close(self) -> None:
        """Deliver pending notifications and close the context if the env opened it (idempotent)."""
        with contextlib.suppress(Exception):
            await self.gate.flush()
        if self.owns_context:
            with contextlib.suppress(Exception):
                await self.ctx.close()
        if self.session is not None:
            with contextlib.suppress(Exception):
                await self.session.close()


def _target_attributes(action: Action, target: Element | None, env: BrowserEnv) -> telemetry.Attributes:
    """An action span's opening attributes: the kind, the target's index, role and name (redacted: a page
    may echo a secret into a name)."""
    if target is None:
        return {"kite.action.kind": action.action}
    return {
        "kite.action.kind": action.action,
        "kite.action.target.index": target.index,
        "kite.action.target.role": target.role or target.tag,
        "kite.action.target.name": env.safety.secrets.redact(target.name),
    }


def _acted_attributes(acted: Acted, redact: Callable[[str], str]) -> telemetry.Attributes:
    """An action span's closing attributes: the gate's level and decision, the outcome and its verified effect."""
    result, gate, effects = acted.result, acted.gate, acted.result.effects
    return {
        "kite.safety.level": str(gate.decision.level),
        "kite.safety.allowed": gate.allowed,
        "kite.safety.reasons": [redact(r) for r in gate.decision.reasons],
        "kite.action.ok": result.ok,
        "kite.action.error": result.error.error if result.error else None,
        "kite.action.method": result.method,
        "kite.effect.changed": effects.changed,
        "kite.effect.navigated": effects.navigated,
        "kite.effect.url": redact(effects.url_after) if effects.url_after else None,
        "kite.effect.message": redact(result.message) if result.message else None,
    }
