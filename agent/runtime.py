"""Wiring: build the parts one run needs from the config (model capabilities, the prompt's page text, totals);
the browser side (context, snapshotter, executor, gate) is assembled in agent/browser/env.py.

Kept apart from the loop so that the loop stays one screen: the loop owns the order of a step, this module
owns how the rooms are put together.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from kite_browser.agent.browser.observation import Observation
from kite_browser.agent.browser.render import render_observation, render_summary
from kite_browser.agent.browser.tokens import count_tokens as _count
from kite_browser.agent.config import KiteConfig
from kite_browser.agent.events import PageObserved
from kite_browser.agent.fence import defuse
from kite_browser.agent.llm.capabilities import Capabilities, capabilities_for, select_mode
from kite_browser.agent.llm.client import Usage
from kite_browser.agent.llm.schemas import tool_schemas
from kite_browser.agent.output import OutputSpec

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
    constrained: bool = False
    """Each step's reply schema goes to the server (``agent.llm.reply_schema``): JSON replies only."""

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
        wants = llm.constrained == "on" or (llm.constrained == "auto" and caps.response_schema)
        setup.constrained = wants and not setup.function_calling
        if setup.function_calling:
            tools = tool_schemas(style=llm.tools, vision=setup.vision)
            setup.tools = output.tools(tools) if output is not None else tools
            import json

            setup.tools_tokens = count_tokens(llm.model, json.dumps(setup.tools))
        return setup


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
    replies_rejected: int = 0
    """Replies no action could be read from (parse errors)."""
    actions_refused: int = 0
    """Actions refused because their target was not on the page (stale or unknown index)."""

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
