"""Done once, not again (``agent/repeats.py``): an action that sent the page somewhere is neither offered nor
run again from the page it led to until something on that page is changed. On the bundled shop, through a
real browser: the recorded habit of the 1.5B model (three mugs in the cart, then "Add to cart" again and
again), with a constrained model through a real OpenAI-compatible server and with a plain model."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from kite_browser.agent import Agent, FunctionModel, ModelView
from kite_browser.agent.config import KiteConfig
from tests.agent.plan_model import find_index, prompt_text
from tests.agent.test_constrained_http import by_name, page_elements, target_enum, target_of, variants
from tests.fixtures.openai_server import FakeOpenAIServer, Reply, Respond
from tests.fixtures.sites import site_state

HELD = 'Already done, and it led to this page: click button "Add to cart"'


async def run_served(
    reply: Callable[[dict[str, Any]], Reply],
    task: str,
    start_url: str,
    kite_config: Callable[..., KiteConfig],
    ctx_session: Any,
    openai_server: FakeOpenAIServer,
) -> Any:
    """The agent's run with ``reply`` answering through the real OpenAI-compatible server (no server errors)."""
    openai_server.fallback = Respond(reply)
    config = kite_config(**{"llm.model": "openai/fake", "llm.api_base": openai_server.base_url})
    result = await Agent(config, context=ctx_session).run(task, start_url=start_url)
    assert not openai_server.errors, openai_server.errors
    return result


async def test_a_constrained_reply_is_not_offered_the_add_that_led_here(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any, openai_server: FakeOpenAIServer
) -> None:
    """Step 1 types 3 and adds; on the page that led to, "Add to cart" is out of the click enum (and the
    prompt says why) while the other elements stay; after the quantity is typed again it is offered again."""
    seen: list[tuple[dict[int, str], dict[str, Any], str]] = []

    def reply(body: dict[str, Any]) -> Reply:
        elements, actions = page_elements(body), variants(body)
        seen.append((elements, actions, body["messages"][-1]["content"]))
        add, qty = by_name(elements, '"Add to cart"'), by_name(elements, '"Quantity"')
        clickable = target_enum(actions["click"], elements)
        step = len(seen)
        if step == 1:
            assert add in clickable
            acts: list[dict[str, Any]] = [
                {"action": "type", "target": target_of(actions["type"], qty), "text": "3"},
                {"action": "click", "target": target_of(actions["click"], add)},
            ]
        elif step == 2:
            assert add not in clickable and clickable == set(elements) - {add}, (add, clickable)
            acts = [{"action": "type", "target": target_of(actions["type"], qty), "text": "2"}]
        else:
            assert add in clickable  # the quantity was changed on this page: adding again is a new order
            acts = [{"action": "done", "success": True, "answer": "5 in the cart"}]
        return Reply(content=json.dumps({"thought": "t", "actions": acts}))

    result = await run_served(
        reply,
        "Put three Red Enamel Mugs in the cart",
        sites.url("/shop/product/red-enamel-mug"),
        kite_config,
        ctx_session,
        openai_server,
    )
    assert result.stop_reason == "done" and len(seen) == 3, result
    assert HELD in seen[1][2] and HELD not in seen[0][2] and HELD not in seen[2][2]
    assert (await site_state(ctx_session.page, sites))["cart_count"] == 3


async def test_a_repeat_is_not_run_and_a_change_lets_it_run(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    """A model that is not constrained gives the repeat anyway: it is not run (a ``repeated`` error that
    says why and is no failed step), and runs again once a field of the page was changed."""

    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        add, qty = find_index(view, "Add to cart"), find_index(view, "Quantity")
        step = len(model.views)
        if step <= 2:  # the add, then the same add from the page it led to
            return {"action": "click", "index": add}
        if step == 3:
            return [{"action": "type", "index": qty, "text": "2"}, {"action": "click", "index": add}]
        return {"action": "done", "success": True, "answer": "3"}

    model = FunctionModel(fn)
    config = kite_config(**{"llm.model": "", "agent.max_failures": 1})
    result = await Agent(config, model=model, context=ctx_session).run(
        "Put three mugs in the cart", start_url=sites.url("/shop/product/red-enamel-mug")
    )
    assert result.stop_reason == "done" and result.steps == 4, (result.stop_reason, result.message)
    after_repeat = prompt_text(model.messages[2])
    assert "error repeated: not run: the same action already ran at step 1" in after_repeat, after_repeat
    assert (await site_state(ctx_session.page, sites))["cart_count"] == 3  # 1, not again, then 2


async def test_a_second_reload_is_held_but_a_reload_of_another_page_is_not(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    """ "Go to the cart, then refresh it": the recorded run refreshed the shop twice, went to the cart and
    refreshed it, then refreshed it again and again."""
    plan: list[Any] = [
        {"action": "refresh"},
        {"action": "refresh"},
        {"action": "navigate", "url": sites.url("/shop/cart")},
        {"action": "refresh"},
        {"action": "refresh"},
        {"action": "done", "success": True, "answer": "ok"},
    ]
    model = FunctionModel(lambda m, v: plan[len(model.views) - 1])
    config = kite_config(**{"llm.model": ""})
    result = await Agent(config, model=model, context=ctx_session).run("x", start_url=sites.url("/shop/"))
    assert result.stop_reason == "done", result.message
    outcomes = [
        "error repeated" in prompt_text(model.messages[i]).split("# Result of your last actions", 1)[1][:300]
        for i in range(1, 6)
    ]
    assert outcomes == [False, True, False, False, True], outcomes


async def test_typing_a_new_query_then_search_runs(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    """ "Type a query, click Search" twice with different queries both run: the typing is a change."""

    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        step = len(model.views)
        if step > 2:
            return {"action": "done", "success": True, "answer": "ok"}
        box = next(e.index for e in view.observation.elements if e.tag == "input" and e.name == "Search")
        search = next(e.index for e in view.observation.elements if e.tag == "button" and e.name == "Search")
        query = "mug" if step == 1 else "bag"
        return [{"action": "type", "index": box, "text": query}, {"action": "click", "index": search}]

    model = FunctionModel(fn)
    config = kite_config(**{"llm.model": ""})
    result = await Agent(config, model=model, context=ctx_session).run("x", start_url=sites.url("/shop/"))
    assert result.stop_reason == "done", result.message
    assert "q=bag" in (result.final_url or ""), result.final_url
    assert "error repeated" not in prompt_text(model.messages[2])


async def test_a_reload_does_not_throw_away_a_choice_not_yet_sent(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    """Recorded (sort-price): the model chose "Price: low to high", then pressed refresh instead of Search,
    which put the sort back, step after step. The reload is not run; the prompt says the choice is unsent."""

    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        sort = next(e.index for e in view.observation.elements if e.name == "Sort by")
        search = next(e.index for e in view.observation.elements if e.tag == "button" and e.name == "Search")
        step = len(model.views)
        if step == 1:
            return [{"action": "select", "index": sort, "value": "Price: low to high"}, {"action": "refresh"}]
        if step == 2:
            return {"action": "click", "index": search}
        return {"action": "done", "success": True, "answer": "sorted"}

    model = FunctionModel(fn)
    config = kite_config(**{"llm.model": ""})
    result = await Agent(config, model=model, context=ctx_session).run(
        "Sort the products by price, lowest first", start_url=sites.url("/shop/")
    )
    assert result.stop_reason == "done", result.message
    second = prompt_text(model.messages[1])
    assert "refresh → error repeated: not run: a reload throws away what you typed or chose" in second, second
    assert "is not sent yet: click the button that sends the form" in second
    assert "sort=price-asc" in (result.final_url or ""), result.final_url
    assert "is not sent yet" not in prompt_text(model.messages[2])  # sent: nothing left unsent


OPEN = 'Opened by you and still open: button "More details"'


async def test_a_section_the_run_opened_is_not_closed_again(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    """Recorded (click-collapsible-2, bundled model): "Section #1" clicked ten steps running, open, closed,
    open... A click on a section this run opened, while it shows open, is refused (no failure), the prompt says
    so; once the page closes it the click is free again."""

    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        summary = next(e.index for e in view.observation.elements if e.name == "More details")
        if view.step <= 2:
            return {"action": "click", "index": summary}
        if view.step == 3:  # the page closes it by itself: opening it again is allowed
            return {"action": "executeJS", "code": "document.querySelector('details').open = false"}
        if view.step == 4:
            return {"action": "click", "index": summary}
        return {"action": "done", "success": True, "answer": "open"}

    model = FunctionModel(fn)
    config = kite_config(**{"llm.model": "", "safety.approve": ["executeJS"]})
    result = await Agent(config, model=model, context=ctx_session).run(
        "Open the details", start_url=sites.url("/test/hidden.html")
    )
    assert result.answer == "open", result
    first, second = model.views[2].history[:2]
    assert first.ok and "now expanded" in first.line
    assert not second.ok and second.error == "repeated" and "you opened this section at step 1" in second.line
    assert OPEN in prompt_text(model.messages[1]) and OPEN not in prompt_text(model.messages[0])
    reopened = model.views[4].history[-1]
    assert reopened.ok and "now expanded" in reopened.line, reopened
    assert await ctx_session.page.locator("details").evaluate("d => d.open")


async def test_a_constrained_reply_is_not_offered_to_close_what_it_opened(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any, openai_server: FakeOpenAIServer
) -> None:
    """Through a real OpenAI-compatible server: after the click that opened the details, its summary is out of
    the click enum (the rest stay) and the prompt says why."""
    seen: list[tuple[dict[int, str], set[int], str]] = []

    def reply(body: dict[str, Any]) -> Reply:
        elements, actions = page_elements(body), variants(body)
        clickable = target_enum(actions["click"], elements)
        seen.append((elements, clickable, body["messages"][-1]["content"]))
        summary = by_name(elements, '"More details"')
        if len(seen) == 1:
            assert summary in clickable
            acts: list[dict[str, Any]] = [{"action": "click", "target": target_of(actions["click"], summary)}]
        else:
            assert summary not in clickable and clickable == set(elements) - {summary}, (summary, clickable)
            acts = [{"action": "done", "success": True, "answer": "open"}]
        return Reply(content=json.dumps({"thought": "t", "actions": acts}))

    result = await run_served(
        reply, "Open the details", sites.url("/test/hidden.html"), kite_config, ctx_session, openai_server
    )
    assert result.stop_reason == "done" and len(seen) == 2, result
    assert OPEN in seen[1][2] and OPEN not in seen[0][2]
