"""The 1.5B model's habits, reproduced with test models: extra fields, a copied prompt example, a ticking
timer, Python literals through the real litellm path. Kite runs what was clearly meant and says so, refuses
what was not, and sees a loop however the page's text ticks."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from kite_browser.agent import Agent, FunctionModel, ModelView
from kite_browser.agent.config import KiteConfig
from kite_browser.agent.llm.fakes import FakeReply
from tests.agent.plan_model import find_index, prompt_text

FENCE = "<untrusted_page>"

TICKING = """<!doctype html><title>Sign up</title>
<p>Time left: <span id="t">10.0</span> s</p>
<label>Name <input id="name"></label> <button>Submit</button>
<script>
  const start = performance.now();
  setInterval(() => {
    document.getElementById('t').textContent = (10 - (performance.now() - start) / 1000).toFixed(2);
  }, 30);
</script>"""


def _outside_the_page(messages: list[dict[str, Any]], text: str) -> bool:
    """``text`` is in the step's user message, outside the fenced page (the system prompt names the fence too)."""
    user = messages[-1]["content"]
    page = user[user.index(FENCE) : user.index("</untrusted_page>")]
    return text in user.replace(page, "") and text not in page


CHECKBOX = """<!doctype html><title>Choose</title>
<p>Select HF2 and click Submit.</p>
<label><input type="checkbox" id="hf2"> HF2</label> <button>Submit</button>"""


async def test_a_checkbox_clicked_on_and_off_is_a_loop(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, pages_server: Any
) -> None:
    """The small model clicked the box it had just ticked, step after step: each click changes the box, so no
    two steps in a row are alike; every other step is."""

    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        return {"action": "click", "index": find_index(view, "HF2")}

    model = FunctionModel(fn)
    config = kite_config(**{"llm.model": "", "agent.loop_warn": 3, "agent.loop_stop": 5})
    result = await Agent(config, model=model, context=ctx_session).run(
        "Select HF2 and click Submit", start_url=pages_server.add("/boxes.html", CHECKBOX)
    )
    warned = ["You have repeated the same action" in prompt_text(m) for m in model.messages]
    # step 1's box is not focused yet, so steps 3, 5, 7 repeat each other and 2, 4, 6 do: warned at the
    # third repeat (steps 6 and 7), stopped at the fifth
    assert result.stop_reason == "loop_detected" and result.steps == 7, result
    assert warned == [False] * 5 + [True, True] and [v.repeating for v in model.views] == warned
    assert "now unchecked (it was checked: this click unticked it)" in prompt_text(model.messages[2])


async def test_a_ticking_timer_does_not_hide_a_loop(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, pages_server: Any
) -> None:
    """The small model typed the same text step after step while a countdown ticked: the page text
    changed every step, so a loop keyed on the page's text never fired."""

    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        return {"action": "type", "index": find_index(view, "name"), "text": "Ada"}

    model = FunctionModel(fn)
    config = kite_config(**{"llm.model": "", "agent.loop_warn": 3, "agent.loop_stop": 5})
    result = await Agent(config, model=model, context=ctx_session).run(
        "Enter Ada as the name", start_url=pages_server.add("/ticking.html", TICKING)
    )
    texts = {v.observation.summary.visible_text for v in model.views}
    assert len(texts) > 1, "the timer did not tick between observations: the test reproduces nothing"
    # step 1 fills the field; steps 2-6 repeat the same typing on a field that already holds "Ada"
    assert result.stop_reason == "loop_detected" and result.steps == 6, result
    warning = "You have repeated the same action 3 times without getting any further"
    assert [warning in prompt_text(m) for m in model.messages] == [False] * 4 + [True, False]
    assert _outside_the_page(model.messages[4], warning)


async def test_extra_and_misnamed_fields_are_run_with_a_note(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        if view.step == 1:  # a valid click, plus what the small model adds
            mug = find_index(view, "Sky Blue Espresso Mug")
            return {"action": "click", "index": mug, "selector": "a.mug", "text": "mug", "button": "Close"}
        return {"action": "done", "success": True, "answer": "opened"}

    model = FunctionModel(fn)
    result = await Agent(kite_config(**{"llm.model": ""}), model=model, context=ctx_session).run(
        "Open the Sky Blue Espresso Mug", start_url=sites.url("/shop/")
    )
    assert result.success and "/shop/product/" in model.views[1].observation.url
    (click,) = model.views[1].history
    assert click.ok and click.action == {
        "action": "click",
        "index": click.index,
        "double": False,
        "mouse_button": "left",
    }
    for note in ("ignored selector", 'ignored text="mug"', 'ignored button="Close"'):
        assert _outside_the_page(model.messages[1], note), note


async def test_a_copied_prompt_example_runs_nothing(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    """The old example typed "blue mug" and pressed Enter, and the model copied it into unrelated tasks."""

    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        if view.step == 1:
            (block,) = re.findall(r"```json\n(.*?)\n```", messages[0]["content"], re.S)
            return f"I will do this.\n```json\n{block}\n```"
        return '```json\n{"action": "done", "success": false, "answer": "gave up"}\n```'

    model = FunctionModel(fn)
    config = kite_config(**{"llm.model": "", "llm.function_calling": False})
    result = await Agent(config, model=model, context=ctx_session).run(
        "Find the cheapest mug", start_url=sites.url("/shop/")
    )
    assert result.answer == "gave up" and model.views[1].history == []  # nothing was typed or clicked
    assert "your reply could not be used" in prompt_text(model.messages[1])


async def test_python_literals_and_extras_through_litellm(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any, scripted_model: Any
) -> None:
    scripted_model.script(
        [
            FakeReply(
                content='Scroll.\n```json\n{"action": "scroll", "direction": "down", "amount": None, '
                '"smooth": True}\n```'
            ),
            FakeReply(
                content='```json\n{"action": "done", "success": True, "answer": "ok", "confidence": 1}\n```'
            ),
        ]
    )
    config = kite_config(**{"llm.model": "kite/scripted", "llm.function_calling": False})
    result = await Agent(config, context=ctx_session).run("Look around", start_url=sites.url("/shop/"))
    assert result.success and result.answer == "ok", result
    second = prompt_text(scripted_model.calls[1].messages)
    assert re.search(r"scroll .*→ ok.*note: Kite ignored smooth=true", second), second[-1500:]


REPEATING = [False, False, False, False, True, True]
"""Told it repeats itself from the 5th step: the 3rd and 4th repeat the 2nd, with the search held back."""


async def test_the_same_search_on_every_reload_is_a_loop(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    """The demo's habit: select colour Blue and click Search, step after step. The search from the results
    page runs once (the task may want the same search again: no guess is enforced), brings the same results
    back, and is then held back (``agent/policies/repeats.py``: an exact repeat that changed nothing), so the
    page is not loaded again, and the held-back steps are a loop all the same."""

    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        colour = next(e.index for e in view.observation.elements if e.name == "Colour")
        search = next(e.index for e in view.observation.elements if e.tag == "button" and e.name == "Search")
        return [{"action": "select", "index": colour, "value": "Blue"}, {"action": "click", "index": search}]

    model = FunctionModel(fn)
    config = kite_config(**{"llm.model": "", "agent.loop_warn": 2, "agent.loop_stop": 4})
    result = await Agent(config, model=model, context=ctx_session).run(
        "Find the cheapest blue mug", start_url=sites.url("/shop/")
    )
    indexes = [next(e.index for e in v.observation.elements if e.name == "Colour") for v in model.views]
    assert len(set(indexes)) == 3 and len(set(indexes[2:])) == 1, indexes  # held: not loaded again
    # step 1 searches from the start page, step 2 again from the results (same results), steps 3-6 held
    assert result.stop_reason == "loop_detected" and result.steps == 6, (result.message, result.steps)
    assert [v.repeating for v in model.views] == REPEATING, [v.repeating for v in model.views]


async def test_the_same_page_opened_on_every_step_is_a_loop(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    """Each step opens the same results page again: every load gives the elements new indexes (Kite never
    reuses one), so the repeat is seen by what the elements are."""
    url = sites.url("/shop/?q=&category=&colour=blue&sort=")
    model = FunctionModel(lambda m, v: {"action": "navigate", "url": url})
    config = kite_config(**{"llm.model": "", "agent.loop_warn": 2, "agent.loop_stop": 4})
    result = await Agent(config, model=model, context=ctx_session).run(
        "Find the cheapest blue mug", start_url=sites.url("/shop/")
    )
    indexes = [next(e.index for e in v.observation.elements if e.name == "Colour") for v in model.views]
    assert len(set(indexes)) == len(indexes), "the loads kept the indexes: the test reproduces nothing"
    assert result.stop_reason == "loop_detected" and result.steps == 5, (result.message, result.steps)
    assert [v.repeating for v in model.views] == [False, False, False, True, True]


async def test_varied_replies_that_change_only_by_unneeded_or_unrun_actions_are_a_loop(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    """The demo's next habit (a recorded run at 0389f22): each reply re-selects values already selected, in a
    different mix, clicks Search (same page again), and adds actions that never run because the page changed.
    What happened is the same each step: only the Search click did anything."""
    replies = 0

    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        nonlocal replies
        replies += 1
        els = view.observation.elements
        colour = next(e.index for e in els if e.name == "Colour")
        sort = next(e.index for e in els if e.name == "Sort by")
        search = next(e.index for e in els if e.tag == "button" and e.name == "Search")
        if replies == 1:
            return [
                {"action": "select", "index": colour, "value": "Blue"},
                {"action": "click", "index": search},
            ]
        if replies % 2 == 0:
            return [
                {"action": "select", "index": colour, "value": "Blue"},
                {"action": "select", "index": sort, "value": "Featured"},
                {"action": "click", "index": search},
                {"action": "click", "index": search},
                {"action": "click", "index": search},
            ]
        return [
            {"action": "select", "index": sort, "value": "Featured"},
            {"action": "click", "index": search},
            {"action": "select", "index": colour, "value": "Blue"},
        ]

    model = FunctionModel(fn)
    config = kite_config(**{"llm.model": "", "agent.loop_warn": 2, "agent.loop_stop": 4})
    result = await Agent(config, model=model, context=ctx_session).run(
        "Find the cheapest blue mug", start_url=sites.url("/shop/")
    )
    # step 1 filters from the start page; steps 2-6 each only click Search again on the results page (the
    # first of them runs and brings the same results back; the others are held)
    assert result.stop_reason == "loop_detected" and result.steps == 6, (result.message, result.steps)
    assert [v.repeating for v in model.views] == REPEATING, [v.repeating for v in model.views]


GENERATE = """<!doctype html><title>Generate</title>
<p>Click Generate until the number is 7.</p><p>Number: <span id="n">0</span></p>
<button onclick="document.getElementById('n').textContent = String(Number(document.getElementById('n').textContent) + 1)">Generate</button>"""


@pytest.mark.parametrize("label", ["Generate", "Already nothing changed? Generate"])
async def test_a_click_that_changes_the_pages_text_is_not_a_loop(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, pages_server: Any, label: str
) -> None:
    """MiniWoB's generate-number and use-slider: the same action again, and its effect is a number in plain
    text. Progress, not a loop (a no-op beside a ticking countdown is one: the test above)."""

    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        if "Number: 7" in view.observation.summary.visible_text:
            return {"action": "done", "success": True, "answer": "7"}
        return {"action": "click", "index": find_index(view, "Generate")}

    model = FunctionModel(fn)
    config = kite_config(**{"llm.model": "", "agent.loop_warn": 2, "agent.loop_stop": 3})
    result = await Agent(config, model=model, context=ctx_session).run(
        "Click Generate until the number is 7",
        start_url=pages_server.add(
            f"/generate-{len(label)}.html", GENERATE.replace(">Generate<", f">{label}<")
        ),
    )
    assert result.success and result.steps == 8 and not any(v.repeating for v in model.views), result


TWO_PAGES = """<!doctype html><title>Form</title>
<label>Name <input id="name"></label> <a href="{next}">Next page</a>"""


async def test_past_actions_on_a_page_left_behind_show_no_index(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, pages_server: Any
) -> None:
    """After a page change the small model copied its own earlier actions, indexes and all, from the steps
    shown in the prompt: an index that is no longer in the page is taken out of those lines."""
    nxt = pages_server.add("/next.html", "<!doctype html><title>Next</title><button>Finish</button>")
    seen: dict[str, int | None] = {}

    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        if view.step == 1:
            seen["name"] = find_index(view, "name")
            return {"action": "type", "index": seen["name"], "text": "Ada"}
        if view.step == 2:
            seen["link"] = find_index(view, "Next page")
            return {"action": "click", "index": seen["link"]}
        return {"action": "done", "success": True, "answer": "ok"}

    model = FunctionModel(fn)
    result = await Agent(kite_config(**{"llm.model": ""}), model=model, context=ctx_session).run(
        "Type Ada and go on", start_url=pages_server.add("/form.html", TWO_PAGES.format(next=nxt))
    )
    assert result.success and model.views[2].observation.url.endswith("/next.html")
    name, link = seen["name"], seen["link"]
    same_page, new_page = prompt_text(model.messages[1]), prompt_text(model.messages[2])
    assert f'type [{name}] input "Name"' in same_page  # still in the page: the index stays
    assert '1. type input "Name" text="Ada" (no longer on the page) → ok;' in new_page
    assert 'click link "Next page" (no longer on the page) → ok; now at' in new_page
    assert f"[{name}]" not in new_page and f"[{link}]" not in new_page
