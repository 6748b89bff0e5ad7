"""End-to-end runs of the planner loop: real browser, bundled shop, fake models through litellm."""

from __future__ import annotations

import json
from pathlib import Path

from kite_browser.agent.llm.fakes import FakeReply
from kite_browser.agent.run.loop import Agent
from tests.agent.plan_model import install, prompt_text
from tests.fixtures.sites import site_state

SHOP_PLAN = [
    ("type", "Search", {"text": "blue mug"}),
    ("pressKey", None, {"key": "Enter"}),
    ("click", "Sky Blue Espresso Mug", {}),
    ("click", "Add to cart", {}),
    ("click", "View cart", {}),
    ("click", "Proceed to checkout", {}),
    ("done", None, {"success": True, "answer": "At checkout with the Sky Blue Espresso Mug"}),
]


def read_steps(run_dir: str) -> list[dict]:
    return [json.loads(line) for line in (Path(run_dir) / "steps.jsonl").read_text().splitlines()]


async def test_shop_flow_with_function_calls(make_config, ctx_session, sites):
    model = install(SHOP_PLAN)
    agent = Agent(make_config(), context=ctx_session)
    result = await agent.run(
        "Put the cheapest blue mug in the cart and go to checkout", start_url=sites.url("/shop/")
    )
    assert result.stop_reason == "done" and result.success, result
    assert "/shop/checkout" in (result.final_url or "")
    state = await site_state(ctx_session.page, sites)
    assert [item["name"] for item in state["cart"]] == ["Sky Blue Espresso Mug"]
    assert all(call["tools"] for call in model.received), "function-calling model got no tools"
    steps = read_steps(result.run_dir)
    assert [s["step"] for s in steps] == list(range(0, len(SHOP_PLAN) + 1))
    run = json.loads((Path(result.run_dir) / "run.json").read_text())
    assert run["result"]["stop_reason"] == "done" and run["task"].startswith("Put the cheapest")


async def test_shop_flow_with_json_fallback(make_config, ctx_session, sites):
    model = install(SHOP_PLAN, json_mode=True)
    agent = Agent(make_config(**{"llm.function_calling": False}), context=ctx_session)
    result = await agent.run(
        "Put the cheapest blue mug in the cart and go to checkout", start_url=sites.url("/shop/")
    )
    assert result.success, result
    assert all(call["tools"] is None for call in model.received)
    assert "```json" in model.received[0]["messages"][0]["content"], (
        "JSON instructions missing from the prompt"
    )
    done = read_steps(result.run_dir)[-1]  # the done step is recorded once, with the model's prose
    assert done["actions"][-1]["action"]["action"] == "done" and done["thought"] == "Next I done."
    assert done["reply"]["content"].startswith("Next I done.") and "act" in done["overhead_ms"]


def _has_image(messages: list[dict]) -> bool:
    return any(
        isinstance(m.get("content"), list) and any(p.get("type") == "image_url" for p in m["content"])
        for m in messages
    )


async def test_images_only_for_vision_models(make_config, ctx_session, sites):
    plan = [("done", None, {"success": True, "answer": "ok"})]
    seen = install(plan)
    await Agent(make_config(**{"llm.vision": True, "llm.mode": "hybrid"}), context=ctx_session).run(
        "look", start_url=sites.url("/shop/")
    )
    assert _has_image(seen.received[0]["messages"])
    seen = install(plan)
    await Agent(make_config(**{"llm.vision": False}), context=ctx_session).run(
        "look", start_url=sites.url("/shop/")
    )
    assert not _has_image(seen.received[0]["messages"])


async def test_stale_index_is_reported_and_run_recovers(make_config, ctx_session, sites, scripted_model):
    scripted_model.script(
        [
            {"name": "click", "arguments": {"index": 987654}},
            {"name": "done", "arguments": {"success": True, "answer": "recovered"}},
        ]
    )
    agent = Agent(make_config(**{"llm.model": "kite/scripted"}), context=ctx_session)
    result = await agent.run("click something", start_url=sites.url("/shop/"))
    assert result.success and result.answer == "recovered"
    second = prompt_text(scripted_model.calls[1].messages)
    assert "stale_element" in second
    step1 = read_steps(result.run_dir)[1]
    assert step1["actions"][0]["result"]["ok"] is False


async def test_prompt_stays_within_a_small_budget(make_config, ctx_session, sites):
    from kite_browser.agent.browser.tokens import estimate_tokens

    plan = [("scroll", None, {"direction": "down"})] * 6 + [("done", None, {"success": True, "answer": "x"})]
    model = install(plan, json_mode=True)
    budget = 2200
    config = make_config(
        **{
            "agent.max_input_tokens": budget,
            "llm.max_output_tokens": 200,
            "agent.loop_stop": 50,
            "llm.function_calling": False,
        }
    )
    agent = Agent(config, context=ctx_session)
    result = await agent.run("scroll through the long listing", start_url=sites.url("/test/listing"))
    assert result.success, result
    tools_tokens = agent.model.tools_tokens
    for call in model.received:
        text = "\n".join(str(m["content"]) for m in call["messages"])
        assert estimate_tokens("kite/plan", text) + tools_tokens <= budget - 200 + 50, "prompt over budget"


async def test_loop_detection_warns_then_stops(make_config, ctx_session, sites, scripted_model):
    scripted_model.script([{"name": "getElements", "arguments": {"type": "button"}}] * 8)
    config = make_config(**{"llm.model": "kite/scripted", "agent.loop_warn": 3, "agent.loop_stop": 5})
    result = await Agent(config, context=ctx_session).run("do nothing useful", start_url=sites.url("/shop/"))
    assert result.stop_reason == "loop_detected" and not result.success
    assert result.steps == 5
    prompts = [prompt_text(c.messages) for c in scripted_model.calls]
    assert "repeated the same action" not in prompts[2] and "repeated the same action" in prompts[3]


async def test_prose_only_model_stops_after_failures(make_config, ctx_session, sites, scripted_model):
    scripted_model.script(["I think the page looks nice."] * 5)
    config = make_config(**{"llm.model": "kite/scripted", "agent.max_failures": 3})
    result = await Agent(config, context=ctx_session).run("buy a mug", start_url=sites.url("/shop/"))
    assert result.stop_reason == "max_failures" and result.steps == 3
    assert len(read_steps(result.run_dir)) == 4  # the start navigation + 3 failed steps
    assert "parse_error" in prompt_text(scripted_model.calls[1].messages) or "could not" in prompt_text(
        scripted_model.calls[1].messages
    )


async def test_fifty_tool_calls_and_a_huge_reply_end_cleanly(make_config, ctx_session, sites, scripted_model):
    many = [{"name": "scroll", "arguments": {"direction": "down", "amount": 10}}] * 50
    huge = FakeReply(content="x" * 1_000_000)
    scripted_model.script(
        [many, huge, {"name": "done", "arguments": {"success": False, "answer": "gave up"}}]
    )
    result = await Agent(make_config(**{"llm.model": "kite/scripted"}), context=ctx_session).run(
        "scroll", start_url=sites.url("/shop/")
    )
    assert result.stop_reason == "done" and result.answer == "gave up"
    steps = read_steps(result.run_dir)
    assert len(steps[1]["actions"]) == 10
    assert "parse_error" in steps[2]
    assert "only the first 10" in prompt_text(scripted_model.calls[1].messages)


async def test_empty_task_is_a_usage_error(make_config):
    import pytest

    from kite_browser.agent.base.errors import UsageError

    with pytest.raises(UsageError):
        await Agent(make_config()).run("   ")


async def test_unreachable_start_url(make_config, ctx_session):
    install([("done", None, {"success": True, "answer": "never"})])
    result = await Agent(make_config(), context=ctx_session).run("look", start_url="http://127.0.0.1:9/")
    assert result.stop_reason == "start_url_unreachable" and not result.success
    run = json.loads((Path(result.run_dir) / "run.json").read_text())
    assert run["result"]["stop_reason"] == "start_url_unreachable"


async def test_the_last_steps_results_are_shown_as_such(make_config, ctx_session, sites, scripted_model):
    scripted_model.script(
        [
            {"name": "click", "arguments": {"selector": "#increment"}},
            {"name": "click", "arguments": {"selector": "#increment"}},
            {"name": "done", "arguments": {"success": True, "answer": "2"}},
        ]
    )
    result = await Agent(make_config(**{"llm.model": "kite/scripted"}), context=ctx_session).run(
        "count to two", start_url=sites.url("/test/counter.html")
    )
    assert result.success
    third = prompt_text(scripted_model.calls[2].messages)
    results = third.split("# Result of your last actions", 1)[1].split("# Current page", 1)[0]
    history = third.split("# Earlier steps", 1)[1].split("# Result of your last actions", 1)[0]
    assert "click" in results and "first step" not in results
    assert history.strip().startswith("1.") and "2." not in history


async def test_a_changing_page_is_not_a_loop(make_config, ctx_session, sites, scripted_model):
    # The same click six times, but each adds an element to the page: not a loop. (A click whose only effect
    # is a number changing in plain text is one since loops ignore the page's text, which a countdown
    # ticks: tests/agent/test_small_model_habits.py.)
    scripted_model.script(
        [{"name": "click", "arguments": {"selector": "#add-item"}}] * 6
        + [{"name": "done", "arguments": {"success": True, "answer": "6"}}]
    )
    config = make_config(**{"llm.model": "kite/scripted", "agent.loop_stop": 5})
    result = await Agent(config, context=ctx_session).run("count", start_url=sites.url("/test/counter.html"))
    assert result.stop_reason == "done", result


async def test_trace_is_recorded_when_asked(make_config, ctx_session, sites, scripted_model):
    import zipfile

    scripted_model.script([{"name": "done", "arguments": {"success": True, "answer": "ok"}}])
    config = make_config(**{"llm.model": "kite/scripted", "run.trace": True})
    result = await Agent(config, context=ctx_session).run("look", start_url=sites.url("/shop/"))
    trace = Path(result.run_dir) / "trace.zip"
    assert result.success and zipfile.is_zipfile(trace)
    assert any(name.endswith(".trace") for name in zipfile.ZipFile(trace).namelist())
