"""Wiring: build the parts one run needs from the config (model capabilities, safety, secrets, browser).

Kept apart from the loop so that the loop stays one screen: the loop owns the order of a step, this module
owns how the rooms are put together.
"""

from __future__ import annotations

import base64
import contextlib
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kite_browser.agent.browser.observation import ActionResult, Observation
from kite_browser.agent.browser.render import render_observation, render_summary
from kite_browser.agent.browser.session import BrowserSession, ContextSession
from kite_browser.agent.browser.snapshot import Snapshotter
from kite_browser.agent.browser.tokens import count_tokens as _count
from kite_browser.agent.browser.watchdog import PageUnresponsiveError, guard
from kite_browser.agent.config import BrowserConfig, KiteConfig
from kite_browser.agent.events import PageObserved
from kite_browser.agent.fence import defuse
from kite_browser.agent.llm.capabilities import Capabilities, capabilities_for, select_mode
from kite_browser.agent.llm.client import Usage
from kite_browser.agent.llm.schemas import tool_schemas
from kite_browser.agent.output import OutputSpec
from kite_browser.safety.confirm import BatchConfirmer, Confirmer, Gate
from kite_browser.safety.domains import DomainPolicy
from kite_browser.safety.policy import SafetyPolicy
from kite_browser.safety.secrets import PLACEHOLDER_RE, SecretStore

IMAGE_TOKENS = 1100  # what one 1280x800 screenshot costs a vision model, roughly


def ms_since(since: float) -> float:
    """Milliseconds since ``time.perf_counter()`` was ``since``, rounded for the record."""
    return round((time.perf_counter() - since) * 1000, 2)


def count_tokens(model: str, text: str) -> int:
    """Tokens of ``text`` for ``model`` (litellm's counter, cached); a rough count if litellm cannot tell."""
    try:
        return _count(text, model)
    except Exception:
        return len(text) // 3 + 1


@dataclass
class ModelSetup:
    """The model, its capabilities and what follows from them for the prompt."""

    model: str
    caps: Capabilities
    mode: str
    function_calling: bool
    vision: bool
    input_budget: int
    tools: list[dict[str, Any]] | None = None
    tools_tokens: int = 0

    @classmethod
    def from_config(cls, config: KiteConfig, output: OutputSpec | None = None) -> ModelSetup:
        """``output``: the run's output type, which describes the ``done`` tool's ``data``."""
        llm = config.llm
        if not llm.model:
            from kite_browser.agent.errors import UsageError

            raise UsageError("no model configured: set KITE_MODEL or pass --model (see README: Models)")
        caps = capabilities_for(llm.model, llm.api_base, llm)
        mode = select_mode(caps, llm.mode)
        budget = config.agent.max_input_tokens or caps.max_input_tokens
        budget = max(1024, budget - llm.max_output_tokens)
        setup = cls(llm.model, caps, mode, caps.function_calling, mode == "hybrid", budget)
        if setup.function_calling:
            tools = tool_schemas(style=llm.tools, vision=setup.vision)
            setup.tools = output.tools(tools) if output is not None else tools
            import json

            setup.tools_tokens = count_tokens(llm.model, json.dumps(setup.tools))
        return setup


@dataclass
class SafetySetup:
    policy: SafetyPolicy
    gate: Gate
    secrets: SecretStore
    domains: DomainPolicy | None = None

    @classmethod
    def from_config(
        cls, config: KiteConfig, confirmer: Confirmer | None = None, secrets: SecretStore | None = None
    ) -> SafetySetup:
        secrets = secrets or SecretStore.from_sources(config.safety)
        policy = SafetyPolicy.from_config(config.safety, secret_names=secrets.names())
        confirmer = confirmer or BatchConfirmer(config.safety.approve)
        # One DomainPolicy, built from the whole config (lists and the rules' allow_loopback), guards both the
        # action policy and the network layer.
        domains = policy.domains if policy.domains.active else None
        return cls(policy, Gate(policy, confirmer), secrets, domains)

    def bind(self, ctx: ContextSession) -> None:
        """Judge the context's dialogs with the gate and keep secrets out of its downloads' file names."""
        gate, redact = self.gate, self.secrets.redact
        ctx.dialog_judge = lambda info, url: gate.check_dialog(info.type, info.message, url)
        ctx.name_filter = lambda name: PLACEHOLDER_RE.sub(r"secret-\1", redact(name))

    @staticmethod
    def unbind(ctx: ContextSession) -> None:
        ctx.dialog_judge = ctx.name_filter = None


@dataclass
class BlockWatch:
    """Tells where the domain policy stopped a request: during an action (named in its result), or between
    two steps, by the page on its own (a timer's ``location`` change, a late meta refresh): a notice for the
    model and the step's record, each with the policy's reason."""

    domains: DomainPolicy | None
    seen: int = 0

    def __post_init__(self) -> None:
        self.mark()

    def mark(self) -> None:
        self.seen = len(self.domains.blocked_log) if self.domains is not None else 0

    def annotate(self, result: ActionResult) -> None:
        """Name the latest block since the last look in the action's result."""
        if self.domains is not None and (note := self.domains.last_block_message(since=self.seen)):
            if result.error is not None:
                result.error.message = f"{note}: {result.error.message}"
            else:
                result.message = f"{note}. {result.message}".strip()
        self.mark()

    def between(self) -> list[str]:
        """What was stopped since the last action ended (the page's own doing), once each."""
        new = self.domains.blocked_log[self.seen :] if self.domains is not None else []
        self.mark()
        return [
            f"after the last action the page tried to load {b.url[:160]} on its own: blocked by the domain "
            f"policy ({b.reason})"
            for b in new
        ]


@contextlib.asynccontextmanager
async def open_context(
    config: KiteConfig, run_dir: Path, given: ContextSession | None = None
) -> AsyncIterator[ContextSession]:
    """The browser context for a run: the one given (batch, TUI), or a new browser closed at the end."""
    if given is not None:
        given.downloads_dir = run_dir / "downloads"
        yield given
        return
    session = BrowserSession(config.browser, downloads_dir=run_dir / "downloads")
    await session.start()
    try:
        yield session.context
    finally:
        await session.close()


async def observe(
    snapshotter: Snapshotter, ctx: ContextSession, *, screenshot_to: Path | None, want_b64: bool
) -> Observation:
    page = ctx.page
    obs = await snapshotter.snapshot(page)
    obs.summary.tabs = await ctx.tabs()
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
    snapshotter: Snapshotter,
    ctx: ContextSession,
    config: BrowserConfig,
    *,
    screenshot_to: Path | None,
    want_b64: bool,
) -> tuple[Observation, str | None]:
    """``observe`` under the step deadline and the hang watchdog.

    A stuck tab is closed and the page now active observed instead; the second value then says what
    happened (for the model). A deadline or a tab that cannot be closed raises (the run ends with a result)."""

    async def once() -> Observation:
        return await guard(
            ctx,
            observe(snapshotter, ctx, screenshot_to=screenshot_to, want_b64=want_b64),
            what="the observation",
            deadline_s=config.step_timeout_ms / 1000,
            hang_s=config.hang_timeout_ms / 1000,
        )

    try:
        return await once(), None
    except PageUnresponsiveError as exc:
        return await once(), exc.message


def page_text(obs: Observation, *, layered: bool, budget_tokens: int) -> str:
    """The page as the model sees it; the untrusted fence cannot be closed from inside the page. Kite's
    own notes about the snapshot (``summary.warnings``) are not page content: ``kite_notices`` has them."""
    if obs.summary.warnings:
        obs = obs.model_copy(update={"summary": obs.summary.model_copy(update={"warnings": []})})
    text = render_summary(obs.summary) if layered else render_observation(obs, budget_tokens=budget_tokens)
    return defuse(text)


def kite_notices(obs: Observation) -> list[str]:
    """Kite's notes about this observation, shown outside ``<untrusted_page>`` (in the Attention section)."""
    return [f"page snapshot: {w}" for w in obs.summary.warnings]


@dataclass
class Totals:
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float | None = None
    model_latency_s: float = 0.0

    def add(self, usage: Usage) -> None:
        self.tokens_in += usage.prompt_tokens
        self.tokens_out += usage.completion_tokens
        self.model_latency_s += usage.latency_ms / 1000
        if usage.cost_usd is not None:
            self.cost_usd = (self.cost_usd or 0.0) + usage.cost_usd


def page_observed(step: int, obs: Observation) -> PageObserved:
    """The run event for the page seen at ``step``."""
    return PageObserved(
        step=step,
        url=obs.url,
        title=obs.summary.title,
        screenshot=obs.screenshot_path,
        text=obs.summary.visible_text[:200],
    )
