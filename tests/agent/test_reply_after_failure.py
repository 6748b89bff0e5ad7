"""After a failed action the rest of that reply is not run (the demo pressed Enter after a failed type)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kite_browser.agent import Agent, FunctionModel, ModelView
from kite_browser.agent.config import KiteConfig


async def test_actions_after_a_failed_one_are_not_run(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        if view.step == 1:  # the small model's habit: type into a guessed selector, then press Enter
            return [
                {"action": "type", "selector": "#no-such-search", "text": "blue mug"},
                {"action": "pressKey", "key": "Enter"},
            ]
        return {"action": "done", "success": False, "answer": "stopped"}

    model = FunctionModel(fn)
    result = await Agent(kite_config(**{"llm.model": ""}), model=model, context=ctx_session).run(
        "Find a blue mug", start_url=sites.url("/shop/")
    )
    assert result.answer == "stopped"
    (failed,) = model.views[1].history  # the Enter was never pressed
    assert failed.name == "type" and not failed.ok
    prompt = model.messages[1][-1]["content"]
    assert "the remaining 1 action(s) of your reply were not run" in prompt
    assert ctx_session.page.url.endswith("/shop/")  # no search was submitted
