"""What a run that stays on one page is told: the elements out of view named like the task, how many times it
has clicked the same control, and which parts of the task are done. Through a real browser on the bundled
dynamic and frames pages, from three recorded runs of the 1.5B model (the sites subset at bd71f89): "Show
alert" below the fold never clicked in fifteen steps; Increment pressed seven times for "twice"; the modal
subscribed at step 4 and opened again for eleven steps."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from kite_browser.agent import Agent, FunctionModel, ModelView
from kite_browser.agent.config import KiteConfig
from tests.agent.plan_model import prompt_text

OUT_OF_VIEW = re.compile(r'Out of view, named like the task: \[(\d+)\] button "Show alert"')


async def test_a_control_below_the_fold_named_by_the_task_is_pointed_at_and_clickable_by_index(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        if len(model.views) == 1:
            m = OUT_OF_VIEW.search(prompt_text(messages))
            assert m is not None, prompt_text(messages)
            shown = next(e for e in view.observation.elements if e.index == int(m.group(1)))
            assert not shown.in_viewport
            return {"action": "click", "index": shown.index}
        return {"action": "done", "success": True, "answer": "dismissed"}

    model = FunctionModel(fn)
    result = await Agent(kite_config(**{"llm.model": ""}), model=model, context=ctx_session).run(
        "Show the alert on the dynamic page and dismiss it.", start_url=sites.url("/dynamic/")
    )
    assert result.stop_reason == "done", result.message
    assert "Alert dismissed" in await ctx_session.page.inner_text("body")
    assert not OUT_OF_VIEW.search(prompt_text(model.messages[1]))  # clicked: used, so no longer pointed at


async def test_the_second_click_on_the_same_control_says_so(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        if len(model.views) == 1:
            inc = next(e.index for e in view.observation.elements if e.name == "Increment")
            return [{"action": "click", "index": inc}, {"action": "click", "index": inc}]
        return {"action": "done", "success": True, "answer": "2"}

    model = FunctionModel(fn)
    result = await Agent(kite_config(**{"llm.model": ""}), model=model, context=ctx_session).run(
        "Press the Increment button of the counter widget twice.", start_url=sites.url("/frames/")
    )
    assert result.stop_reason == "done", result.message
    said = prompt_text(model.messages[1]).split("# Result of your last actions", 1)[1][:500]
    assert said.count("→ ok") == 2 and said.count("(2 times in this run)") == 1, said


async def test_the_parts_done_are_said_on_the_page_the_run_never_left(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        step = len(model.views)
        named = {e.name: e.index for e in view.observation.elements}
        if step == 1:
            return {"action": "click", "index": named["Open modal"]}
        if step == 2:
            email = next(e.index for e in view.observation.elements if e.tag == "input" and e.in_viewport)
            return [
                {"action": "type", "index": email, "text": "news@example.com"},
                {"action": "click", "index": named["Subscribe"]},
            ]
        return {"action": "done", "success": True, "answer": "subscribed"}

    model = FunctionModel(fn)
    result = await Agent(kite_config(**{"llm.model": ""}), model=model, context=ctx_session).run(
        "Open the newsletter modal and subscribe with news@example.com.", start_url=sites.url("/dynamic/")
    )
    assert result.stop_reason == "done", result.message
    assert ctx_session.page.url.endswith("/dynamic/")  # one page all along
    before, after = prompt_text(model.messages[1]), prompt_text(model.messages[2])
    assert (
        "Parts of the task done: Open the newsletter modal" in before
        and "Every part of the task" not in before
    )
    assert "Every part of the task looks done" in after, after
