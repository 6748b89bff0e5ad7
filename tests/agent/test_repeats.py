"""An exact repeat that changed nothing is not run again (``agent/policies/repeats.py``): an action that ran
from this very page and brought it back unchanged is neither offered nor run again until something on that
page changes; a repeat that changes the page (a second "Add to cart": the cart count) runs. On the bundled
shop, through a real browser, with a constrained model through a real OpenAI-compatible server and with a
plain model."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from kite_browser.agent import Agent, FunctionModel, ModelView
from kite_browser.agent.config import KiteConfig
from tests.agent.plan_model import prompt_text
from tests.agent.test_constrained_http import by_name, page_elements, target_enum, target_of, variants
from tests.fixtures.openai_server import FakeOpenAIServer, Reply, Respond
from tests.fixtures.sites import site_state

HELD = 'Already done from this same page, and it came back unchanged: click button "Search"'


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


async def test_a_second_add_is_offered_and_runs_when_the_task_asks_for_two(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any, openai_server: FakeOpenAIServer
) -> None:
    """ "Add two of X": the second "Add to cart" comes from a page that differs from the first's (the cart
    count), so it is no exact repeat: the constrained schema offers it and it runs. Only the fact is used,
    never a guess at what the task wants."""
    seen: list[set[int]] = []

    def reply(body: dict[str, Any]) -> Reply:
        elements, actions = page_elements(body), variants(body)
        add = by_name(elements, '"Add to cart"')
        seen.append(target_enum(actions["click"], elements))
        assert add in seen[-1], (add, seen[-1])  # offered on both pages
        if len(seen) <= 2:
            acts: list[dict[str, Any]] = [{"action": "click", "target": target_of(actions["click"], add)}]
        else:
            acts = [{"action": "done", "success": True, "answer": "2 in the cart"}]
        return Reply(content=json.dumps({"thought": "t", "actions": acts}))

    result = await run_served(
        reply,
        "add two of the Red Enamel Mug to the cart",
        sites.url("/shop/product/red-enamel-mug"),
        kite_config,
        ctx_session,
        openai_server,
    )
    assert result.stop_reason == "done" and len(seen) == 3, result
    assert (await site_state(ctx_session.page, sites))["cart_count"] == 2


async def test_a_search_that_brought_the_same_results_back_is_not_offered_again(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any, openai_server: FakeOpenAIServer
) -> None:
    """Search, then Search again on the results it produced: that runs once (a fact is not known before it
    happens) and brings the same results back; from then on, on that unchanged page, Search is out of the
    click enum (the rest stay) and the prompt says why; after a new query is typed it is offered again."""
    seen: list[tuple[dict[int, str], set[int], str]] = []

    def reply(body: dict[str, Any]) -> Reply:
        elements, actions = page_elements(body), variants(body)
        clickable = target_enum(actions["click"], elements)
        seen.append((elements, clickable, body["messages"][-1]["content"]))
        search = by_name(elements, 'button "Search"')
        box = next(i for i, line in elements.items() if line.startswith("input") and "Search" in line)
        step = len(seen)
        if step == 1:
            acts: list[dict[str, Any]] = [
                {"action": "type", "target": target_of(actions["type"], box), "text": "mug"},
                {"action": "click", "target": target_of(actions["click"], search)},
            ]
        elif step == 2:
            assert search in clickable
            acts = [{"action": "click", "target": target_of(actions["click"], search)}]
        elif step == 3:
            assert search not in clickable and clickable == set(elements) - {search}, (search, clickable)
            acts = [{"action": "type", "target": target_of(actions["type"], box), "text": "bag"}]
        else:
            assert search in clickable  # the query was changed on this page: a new search
            acts = [{"action": "done", "success": True, "answer": "searched"}]
        return Reply(content=json.dumps({"thought": "t", "actions": acts}))

    result = await run_served(
        reply, "search the shop for mug", sites.url("/shop/"), kite_config, ctx_session, openai_server
    )
    assert result.stop_reason == "done" and len(seen) == 4, result
    assert HELD in seen[2][2] and not any(HELD in s[2] for s in (seen[0], seen[1], seen[3]))


async def test_an_exact_repeat_is_not_run_and_a_change_lets_it_run(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    """A model that is not constrained gives the exact repeat anyway: it is not run (a ``repeated`` error
    that says why and is no failed step), and a search runs again once the query on the page was changed."""

    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        els = view.observation.elements
        box = next(e.index for e in els if e.tag == "input" and e.name == "Search")
        search = next(e.index for e in els if e.tag == "button" and e.name == "Search")
        step = len(model.views)
        if step == 1:
            return [{"action": "type", "index": box, "text": "mug"}, {"action": "click", "index": search}]
        if step <= 3:  # again from the results (runs, same results), and again (held)
            return {"action": "click", "index": search}
        if step == 4:
            return [{"action": "type", "index": box, "text": "bag"}, {"action": "click", "index": search}]
        return {"action": "done", "success": True, "answer": "ok"}

    model = FunctionModel(fn)
    config = kite_config(**{"llm.model": "", "agent.max_failures": 1})
    result = await Agent(config, model=model, context=ctx_session).run(
        "search the shop for mug", start_url=sites.url("/shop/")
    )
    assert result.stop_reason == "done" and result.steps == 5, (result.stop_reason, result.message)
    assert "error repeated" not in prompt_text(model.messages[2])
    after_repeat = prompt_text(model.messages[3])
    assert "error repeated: not run: the same action ran from this same page at step 2" in after_repeat
    assert "q=bag" in (result.final_url or ""), result.final_url


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
