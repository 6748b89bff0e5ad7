"""The model's own plan and notes (``agent/policies/own_plan.py``): a constrained reply carries a plan on the
first step and "done so far" / "next" later; Kite shows them back and corrects a note the page contradicts.
And ``goal_reached`` holding, once, a state change the task never names when only the answer is left by the
model's own "next" note. On the bundled shop, through a real browser and a real OpenAI-compatible server."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kite_browser.agent import Agent
from kite_browser.agent.browser.actions import Click
from kite_browser.agent.browser.observation import ActionResult, Element, Observation, PageSummary, Rect
from kite_browser.agent.config import KiteConfig, load_config
from kite_browser.agent.llm.model import PastAction
from kite_browser.agent.policies import POLICY_NAMES
from kite_browser.agent.policies.base import Proposed, Ran, StepView
from kite_browser.agent.policies.goal import HELD, GoalReached
from kite_browser.agent.policies.own_plan import contradictions
from kite_browser.agent.policies.recap import progress
from kite_browser.agent.run.prompt import PromptBuilder
from tests.agent.test_constrained_http import by_name, page_elements, target_of, variants
from tests.fixtures.openai_server import FakeOpenAIServer, Reply, Respond


def _fields(body: dict[str, Any]) -> list[str]:
    return list(body["response_format"]["json_schema"]["schema"]["properties"])


async def test_the_plan_and_notes_are_asked_shown_back_and_a_contradicted_note_corrected(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any, openai_server: FakeOpenAIServer
) -> None:
    bodies: list[dict[str, Any]] = []

    def reply(body: dict[str, Any]) -> Reply:
        bodies.append(body)
        elements, actions = page_elements(body), variants(body)
        if len(bodies) == 1:
            out: dict[str, Any] = {
                "plan": "find the mug, add it to the cart, report the cart",
                "thought": "the shop's front page",
                "actions": [{"action": "wait", "ms": 10}],
            }
        elif len(bodies) == 2:  # a note the page contradicts: nothing was added, nothing typed
            out = {
                "done_so_far": "typed mug and added the mug to the cart",
                "thought": "the list of products",
                "next": "open the cart",
                "actions": [
                    {"action": "click", "target": target_of(actions["click"], by_name(elements, '"Cart'))}
                ],
            }
        else:
            out = {
                "done_so_far": "opened the cart",
                "thought": "the cart is empty",
                "next": "report the cart",
                "actions": [{"action": "done", "success": False, "answer": "the cart is empty"}],
            }
        return Reply(content=json.dumps(out))

    openai_server.fallback = Respond(reply)
    on = [*POLICY_NAMES]  # own_plan is off by default (docs/decisions/own-plan-off.md)
    config = kite_config(
        **{
            "llm.model": "openai/fake",
            "llm.api_base": openai_server.base_url,
            "agent.policies.constrained": on,
        }
    )
    result = await Agent(config, context=ctx_session).run(
        "Add a mug to the cart and report the cart", start_url=sites.url("/shop/")
    )
    assert not openai_server.errors, openai_server.errors
    system = bodies[0]["messages"][0]["content"]
    assert '{"done_so_far": "<' in system and '"plan"' in system  # the form the schema asks for
    assert result.stop_reason == "done", result.message
    assert [_fields(b)[0] for b in bodies] == ["plan", "done_so_far", "done_so_far"]
    assert _fields(bodies[1]) == ["done_so_far", "thought", "next", "actions"]
    second = bodies[1]["messages"][-1]["content"]
    assert "Your plan: find the mug, add it to the cart, report the cart" in second
    assert "Your last note:" not in second  # nothing noted yet
    third = bodies[2]["messages"][-1]["content"]
    assert (
        "Your last note: done so far: typed mug and added the mug to the cart; next: open the cart" in third
    )
    correction = third.split("</untrusted_page>", 1)[1]  # Kite's notices come after the page
    assert (
        'Your note "done so far: typed mug and added the mug to the cart" is not what Kite sees' in correction
    )
    assert "the page shows cart (0): nothing is in it" in correction
    assert "no text has been typed in this run" in correction
    steps = _steps(result.run_dir)
    assert steps[1]["said"] == {"plan": "find the mug, add it to the cart, report the cart"}
    assert steps[2]["said"]["next"] == "open the cart"


def _steps(run_dir: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(run_dir, "steps.jsonl").read_text().splitlines()]


def _el(index: int, name: str, tag: str = "button") -> Element:
    return Element(
        index=index, tag=tag, role=tag, name=name, rect=Rect(x=0, y=20 * index, width=80, height=18)
    )


def _obs(*elements: Element, text: str = "") -> Observation:
    return Observation(
        summary=PageSummary(url="http://shop.test/cart", title="Cart", visible_text=text),
        elements=list(elements),
    )


def test_own_plan_is_off_by_default_and_the_prompt_then_shows_the_plain_form() -> None:
    config = load_config(overrides={}, env={})
    assert "own_plan" not in config.agent.policies.enabled(constrained=True, function_calling=False)
    system = PromptBuilder("t", function_calling=False, constrained=True).system()
    assert '{"thought": "<' in system and "done_so_far" not in system


def test_a_note_is_checked_against_the_cart_counter_and_the_actions_that_ran() -> None:
    cart = _obs(_el(1, "Cart (1)", "a"), text="Your cart")
    typed = [PastAction(step=1, action={"action": "type", "index": 3, "text": "mug"}, ok=True)]
    assert contradictions("added the mug to the cart", cart, typed) == []
    assert contradictions("2 in the cart", cart, typed) == [
        'it says "2 in the cart", the page shows cart (1)'
    ]
    assert contradictions("searched for mug", cart, []) == ["no text has been typed in this run"]
    assert contradictions("", cart, []) == []


async def test_goal_reached_holds_an_unasked_state_change_when_the_models_next_is_the_answer() -> None:
    """A one-part task the task-parts guess cannot call done (no answer part in its words): the model's own
    "next" note says only the answer is left, so "Remove" (a state change the task never names) is held,
    with a note, and not offered again on the same page; proposed again anyway, it runs. "Continue shopping"
    is no state change by its name: it runs."""
    task = "Look at the cart of the shop"
    remove, browse = _el(5, "Remove"), _el(6, "Continue shopping", "a")
    obs = _obs(remove, browse, text="Your cart")
    goal = GoalReached()
    history = [
        PastAction(step=1, action={"action": "click", "index": 2}, ok=True, element=_el(2, "Cart (1)"))
    ]
    click = Click(index=5)
    goal.learn(Ran(click, None, _ran_ok(), obs, 1, True, [], {"next": "report what the cart holds"}))
    goal.notes(StepView(task, 2, obs, history, {}, progress(task, history), True))

    async def proposed(element: Element) -> Any:
        return await goal.refuse(Proposed(Click(index=element.index), element, obs, 2, [], _NoPage()))

    held = await proposed(remove)
    assert held is not None and held.error is not None and held.error.error == HELD
    assert "only the task's answer looks left" in held.error.message and '"Remove"' in held.error.message
    assert await proposed(browse) is None
    view = StepView(task, 3, obs, history, {}, progress(task, history), True)
    assert goal.withheld(view).pairs == {("click", 5)}  # a refusal: not offered again on the same page
    changed = _obs(remove, browse, text="Your cart is empty")
    assert (
        goal.withheld(StepView(task, 3, changed, history, {}, progress(task, history), True)).pairs == set()
    )
    assert await proposed(remove) is None  # asked again (a model not constrained): it runs


def _ran_ok() -> ActionResult:
    return ActionResult(action="click", ok=True)


class _NoPage:
    async def read_each(self, indexes: list[int], js: str) -> dict[int, object]:
        return {}
