"""One step's messages, fitted to the model's input budget: the history compacted level by level, the page's
element list given less room, at last the page text cut."""

from __future__ import annotations

from collections.abc import Callable

from kite_browser.agent.browser.observation import Observation
from kite_browser.agent.browser.timing import StepTimer
from kite_browser.agent.browser.tokens import estimate_tokens
from kite_browser.agent.config import KiteConfig
from kite_browser.agent.llm.chat import ChatMessage
from kite_browser.agent.run.memory import Memory
from kite_browser.agent.run.model_setup import IMAGE_TOKENS, ModelSetup
from kite_browser.agent.run.prompt import PromptBuilder, page_text


def fit_messages(
    prompt: PromptBuilder,
    model: ModelSetup,
    memory: Memory,
    config: KiteConfig,
    redact: Callable[[str], str],
    timer: StepTimer,
    obs: Observation,
    step: int,
    warnings: list[str],
    recap: dict[str, list[str]],
    min_compaction: int = 0,
) -> tuple[list[ChatMessage], int]:
    """The messages and their estimated tokens; the page and the steps are ``redact``ed (the task is the
    user's own words)."""
    system_tokens = estimate_tokens(model.model, prompt.system())  # cached after the first step
    fixed = system_tokens + model.tools_tokens + (IMAGE_TOKENS if obs.screenshot_b64 else 0)
    layered = config.agent.observation == "layered"
    live = {e.index for e in obs.elements}
    for level in range(min_compaction, 5):
        history, results = memory.render(min(level, 3), live)
        elements_budget = max(120, config.snapshot.token_budget >> level)
        with timer.phase("render"):
            page = page_text(obs, layered=layered, budget_tokens=elements_budget)
        if level == 4:  # last resort: cut the page text to what fits
            room = max(200, (model.input_budget - fixed) * 3)
            page = page[: room // 2] + "\n… (page text cut to fit the model's input budget)"
        text = prompt.user(
            step=step,
            history=[redact(h) for h in history],
            results=[redact(x) for x in results],
            warnings=warnings,
            page=redact(page),
            recap={k: [redact(x) for x in v] for k, v in recap.items()},
        )
        total = fixed + estimate_tokens(model.model, text)
        if total <= model.input_budget:
            break
    return prompt.messages(text, obs.screenshot_b64), total
