"""Claims checked, goals noticed (issue 46 item 3): ``claims`` and ``goal_reached`` each alone (the other
policies off), driven by a scripted model through a real browser on the bundled shop."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kite_browser.agent import Agent, FunctionModel, ModelView
from kite_browser.agent.config import KiteConfig
from kite_browser.agent.policies.evidence import counters, facts, holder_claims, number_key, only_shown
from tests.agent.plan_model import find_index, prompt_text
from tests.agent.test_cli import _run
from tests.agent.test_policies import _box, _results, _search, only
from tests.fixtures.sites import site_state


def _done(answer: str) -> dict[str, Any]:
    return {"action": "done", "success": True, "answer": answer}


def test_the_evidence_reads_counters_claims_and_facts() -> None:
    assert counters("Kite Shop Cart ( 3 ) Log in") == {"cart": 3}
    assert counters("Basket: 2 items") == {"basket": 2}
    assert [(c.holder, c.count) for c in holder_claims("There are 2 in the cart now")] == [("cart", 2)]
    assert [(c.holder, c.count) for c in holder_claims("Your cart has two mugs")] == [("cart", 2)]
    assert holder_claims("I added the mug to the cart") == []
    assert only_shown("the page shows only the items asked for")
    assert only_shown("only black bags are shown")
    assert only_shown("There is only one red mug: Red Enamel Mug") is None
    assert facts('The "Black Backpack" costs $59.00, order KITE-10001, 2 left') == [
        "$59.00",
        "10001",
        "Black Backpack",
    ]
    assert number_key("$1,299.00") == number_key("1299") == "1299"


async def test_only_the_items_asked_for_with_every_product_listed_is_sent_back_then_unverified(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    model = FunctionModel(lambda m, v: _done("the page shows only the items asked for"))
    result = await Agent(only(kite_config, "claims"), model=model, context=ctx_session).run(
        "Show only the yellow products", start_url=sites.url("/shop/")
    )
    assert result.stop_reason == "done" and result.steps == 2, result.message
    said = _results(model, 1)
    assert "error unverified_claim" in said and "the page lists 21 items at the same address" in said, said
    assert result.claimed_success and not result.success and result.verified is False
    assert "21 items" in result.verification and "unverified" in result.message, result.message
    assert result.model_dump(mode="json")["verified"] is False


async def test_two_in_the_cart_with_three_there_is_sent_back(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    """The model set the quantity to 3 and added; it says 2: sent back with the header's count, then a
    corrected claim passes, verified."""

    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        step = len(model.views)
        if step == 1:
            return [
                {"action": "type", "index": find_index(view, "Quantity") or _qty(view), "text": "3"},
                {"action": "click", "index": find_index(view, "Add to cart")},
            ]
        return _done("2 in the cart" if step == 2 else "3 in the cart")

    model = FunctionModel(fn)
    result = await Agent(only(kite_config, "claims"), model=model, context=ctx_session).run(
        "Put the Classic Blue Mug in the cart", start_url=sites.url("/shop/product/classic-blue-mug")
    )
    assert (await site_state(ctx_session.page, sites))["cart_count"] == 3
    said = _results(model, 2)
    assert 'you said "2 in the cart", the page shows cart (3)' in said, said
    assert result.success and result.verified is True and result.steps == 3, result.message
    assert "cart (3) shown" in result.verification


def _qty(view: ModelView) -> int:
    return next(e.index for e in view.observation.elements if e.tag == "input" and e.type == "number")


async def test_a_true_claim_passes_untouched_with_no_extra_model_call(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    model = FunctionModel(lambda m, v: _done("The Black Backpack costs $59.00"))
    result = await Agent(only(kite_config, "claims"), model=model, context=ctx_session).run(
        "What does the Black Backpack cost?", start_url=sites.url("/shop/")
    )
    assert result.success and result.steps == 1 and len(model.views) == 1, result.message
    assert result.verified is True and "$59.00 seen" in result.verification


async def test_a_price_on_no_page_is_sent_back_and_one_the_page_shows_passes(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    answers = iter(["The Black Backpack costs $47.13", "The Black Backpack costs $59.00"])
    model = FunctionModel(lambda m, v: _done(next(answers)))
    result = await Agent(only(kite_config, "claims"), model=model, context=ctx_session).run(
        "What does the Black Backpack cost?", start_url=sites.url("/shop/")
    )
    assert "$47.13 in your answer appears on no page this run saw" in _results(model, 1)
    assert result.success and result.verified is True and result.steps == 2, result.message


async def test_with_claims_off_a_contradicted_claim_is_not_judged(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    model = FunctionModel(lambda m, v: _done("the page shows only the items asked for"))
    result = await Agent(only(kite_config), model=model, context=ctx_session).run(
        "Show only the yellow products", start_url=sites.url("/shop/")
    )
    assert result.success and result.verified is None and result.steps == 1, result.message


def _search_for_mug(view: ModelView) -> list[dict[str, Any]]:
    return [
        {"action": "type", "index": _box(view), "text": "mug"},
        {"action": "click", "index": _search(view)},
    ]


async def test_a_search_done_at_step_one_gets_the_looks_done_note_at_step_two(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        return _search_for_mug(view) if len(model.views) == 1 else _done("searched")

    for on in (True, False):
        model = FunctionModel(fn)
        config = only(kite_config, "goal_reached") if on else only(kite_config)
        result = await Agent(config, model=model, context=ctx_session).run(
            "Search the shop for mug", start_url=sites.url("/shop/")
        )
        assert result.steps == 2, result.message
        assert "Every part of the task looks done" not in prompt_text(model.messages[0])
        assert ("Every part of the task looks done" in prompt_text(model.messages[1])) is on


async def test_add_to_cart_after_a_finished_search_is_held_once_then_runs(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        step = len(model.views)
        if step == 1:
            return _search_for_mug(view)
        if step == 2:
            return {"action": "click", "index": find_index(view, "Classic Blue Mug")}
        if step in (3, 4):
            return {"action": "click", "index": find_index(view, "Add to cart")}
        return _done("searched")

    model = FunctionModel(fn)
    result = await Agent(only(kite_config, "goal_reached"), model=model, context=ctx_session).run(
        "Search the shop for mug", start_url=sites.url("/shop/")
    )
    assert result.steps == 5, result.message
    held = _results(model, 3)
    assert "error unasked_state_change" in held and "the task never mentions" in held, held
    assert "error unasked_state_change" not in _results(model, 4)  # asked again: it ran
    assert (await site_state(ctx_session.page, sites))["cart_count"] == 1


async def test_a_task_that_names_the_cart_is_never_held(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        if len(model.views) == 1:
            return {"action": "click", "index": find_index(view, "Add to cart")}
        return _done("added")

    model = FunctionModel(fn)
    result = await Agent(only(kite_config, "goal_reached"), model=model, context=ctx_session).run(
        "Add the Classic Blue Mug to the cart", start_url=sites.url("/shop/product/classic-blue-mug")
    )
    assert result.steps == 2 and "unasked_state_change" not in _results(model, 1), result.message
    assert (await site_state(ctx_session.page, sites))["cart_count"] == 1


def test_kite_run_json_reports_an_unverified_claim(tmp_path: Path, sites: Any) -> None:
    """The CLI: a claim the page contradicts, insisted on, exits 1 with ``verified`` false and the evidence in
    the JSON, and the progress lines say unverified."""
    said = {"name": "done", "arguments": {"success": True, "answer": "There are 2 in the cart"}}
    proc = _run(tmp_path, [said, said], "run", "Look at the cart", "--model", "kite/scripted", "--start-url",
                sites.url("/shop/"), "--json")  # fmt: skip
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert proc.returncode == 1, proc.stderr
    assert result["claimed_success"] and not result["success"] and result["verified"] is False, result
    assert "the page shows cart (0)" in result["verification"] and result["steps"] == 2, result
    assert "unverified:" in proc.stderr, proc.stderr


async def test_a_number_computed_from_prices_seen_is_not_judged(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    """Two Classic Blue Mugs at $12.99: $25.98 is on no page, but the run could compute it; not sent back."""
    model = FunctionModel(lambda m, v: _done("Two Classic Blue Mugs cost $25.98"))
    result = await Agent(only(kite_config, "claims"), model=model, context=ctx_session).run(
        "What would two Classic Blue Mugs cost?", start_url=sites.url("/shop/")
    )
    assert result.success and result.steps == 1 and result.verified is None, (
        result.message,
        result.verification,
    )
