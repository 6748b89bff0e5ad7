"""The question a constrained reply is asked once only the answer looks left and a step changed nothing
(``answer_next``): does the page show what the task asks for? The model's own "yes" binds its reply to
``done``; its "no" leaves every action open. On the bundled shop, through a real browser and a real
OpenAI-compatible server; and the schema's shape alone."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import jsonschema
import pytest

from kite_browser.agent import Agent
from kite_browser.agent.browser.observation import Element, Observation, PageSummary, Rect
from kite_browser.agent.config import KiteConfig
from kite_browser.agent.llm.reply_schema import ANSWER_SHOWN, reply_schema
from tests.agent.test_constrained_http import by_name, page_elements, target_of
from tests.fixtures.openai_server import FakeOpenAIServer, Reply, Respond


def _cart() -> Observation:
    els = [
        Element(index=i, tag=t, role=r, name=n, rect=Rect(x=0, y=20 * i, width=80, height=18))
        for i, t, r, n in [(1, "button", "button", "Update"), (2, "button", "button", "Remove")]
    ]
    return Observation(summary=PageSummary(url="http://shop.test/cart", title="Cart"), elements=els)


def test_a_yes_binds_the_reply_to_done_and_a_no_leaves_every_action() -> None:
    schema = reply_schema(_cart(), ["click", "read", "done"], notes=[ANSWER_SHOWN])
    yes, no = schema["anyOf"]
    assert no["properties"][ANSWER_SHOWN] == {"type": "string", "const": "no"}
    assert list(yes["properties"]) == ["thought", ANSWER_SHOWN, "actions"] == yes["required"]
    done = {"action": "done", "success": True, "answer": "1 mug"}
    click = {"action": "click", "target": "button: Update [1]"}
    jsonschema.validate({"thought": "t", ANSWER_SHOWN: "yes", "actions": [done]}, schema)
    jsonschema.validate({"thought": "t", ANSWER_SHOWN: "no", "actions": [click]}, schema)
    jsonschema.validate({"thought": "t", ANSWER_SHOWN: "no", "actions": [done]}, schema)
    for wrong in ([click], [done, click]):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"thought": "t", ANSWER_SHOWN: "yes", "actions": wrong}, schema)
    # without done on offer there is nothing a yes could bind to: no question
    assert "anyOf" not in reply_schema(_cart(), ["click"], notes=[ANSWER_SHOWN])


async def test_the_question_comes_after_a_step_that_changed_nothing_with_only_the_answer_left(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any, openai_server: FakeOpenAIServer
) -> None:
    bodies: list[dict[str, Any]] = []

    def reply(body: dict[str, Any]) -> Reply:
        bodies.append(body)
        schema = body["response_format"]["json_schema"]["schema"]
        if len(bodies) == 1:
            cart = by_name(page_elements(body), '"Cart')
            acts = [{"action": "click", "target": target_of(_variant(schema, "click"), cart)}]
            return Reply(content=json.dumps({"thought": "t", "actions": acts}))
        if len(bodies) == 2:  # on the cart, only the answer left: a read that changes nothing
            assert "anyOf" not in schema
            return Reply(content=json.dumps({"thought": "t", "actions": [{"action": "read"}]}))
        assert len(schema["anyOf"]) == 2, schema  # asked now
        text = body["messages"][-1]["content"]
        assert 'Does the current page show what the task asks for ("report what it holds")?' in text
        done = {"action": "done", "success": True, "answer": "the cart is empty"}
        return Reply(content=json.dumps({"thought": "t", ANSWER_SHOWN: "yes", "actions": [done]}))

    openai_server.fallback = Respond(reply)
    config = kite_config(**{"llm.model": "openai/fake", "llm.api_base": openai_server.base_url})
    result = await Agent(config, context=ctx_session).run(
        "Open the cart and report what it holds", start_url=sites.url("/shop/")
    )
    assert not openai_server.errors, openai_server.errors
    assert result.stop_reason == "done" and result.answer == "the cart is empty", result.message
    assert len(bodies) == 3


def _variant(schema: dict[str, Any], name: str) -> dict[str, Any]:
    items = schema["properties"]["actions"]["items"]["anyOf"]
    return next(v for v in items if v["properties"]["action"]["const"] == name)
