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


async def test_actions_after_a_click_that_opens_a_section_are_not_run(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    """Recorded (MiniWoB click-collapsible-2, bundled model): one reply opened Section #2 and then Section #3,
    which closed #2 before its links were ever seen. After a click that opens or closes a section the rest of the
    reply waits for the next look."""

    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        if view.step == 1:
            by_name = {e.name: e.index for e in view.observation.elements}
            return [
                {"action": "click", "index": by_name["More details"]},
                {"action": "click", "index": by_name["Visible button"]},
            ]
        return {"action": "done", "success": False, "answer": "stopped"}

    model = FunctionModel(fn)
    result = await Agent(kite_config(**{"llm.model": ""}), model=model, context=ctx_session).run(
        "Open the details", start_url=sites.url("/test/hidden.html")
    )
    assert result.answer == "stopped"
    (opened,) = model.views[1].history  # the second click was never made
    assert opened.name == "click" and opened.ok
    prompt = model.messages[1][-1]["content"]
    assert "now expanded" in prompt
    assert "the click expanded a section, so the remaining 1 action(s) were not run" in prompt
    assert await ctx_session.page.locator("#result").inner_text() == ""
    assert await ctx_session.page.locator("details").evaluate("d => d.open")
