"""Checks score the final browser state, not the model's claim: URL, text, JS, state endpoint, confirmations."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kite_browser.agent.batch.checks import confirmations, dotted, evaluate
from kite_browser.agent.batch.tasks import Check


def test_dotted_paths() -> None:
    data = {"cart": [{"name": "Mug"}], "accounts": {"demo@kite.test": {"name": "Demo"}}, "user": None}
    assert dotted(data, "cart.0.name") == "Mug"
    assert dotted(data, "cart.length") == 1
    assert dotted(data, "/accounts/demo@kite.test/name") == "Demo"
    assert dotted(data, "/cart/-1/name") == "Mug"
    assert dotted(data, "user") is None
    with pytest.raises(KeyError):
        dotted(data, "cart.0.price")


def _run_dir(tmp_path: Path, levels: list[tuple[str, str]]) -> str:
    steps = [
        {
            "step": i + 1,
            "actions": [
                {
                    "action": {"action": name},
                    "decision": {"level": level, "allowed": True},
                    "result": {"ok": True},
                }
            ],
        }
        for i, (name, level) in enumerate(levels)
    ]
    (tmp_path / "steps.jsonl").write_text("\n".join(json.dumps(s) for s in steps) + "\n", encoding="utf-8")
    return str(tmp_path)


async def test_checks_against_a_real_page(sites: Any, ctx_session: Any, tmp_path: Path) -> None:
    page = ctx_session.page
    await page.goto(sites.url("/shop/product/classic-blue-mug"))
    await page.click("#add-to-cart")
    await page.wait_for_selector("#added-message")
    run_dir = _run_dir(tmp_path, [("click", "auto"), ("click", "confirm")])

    good = Check(
        url=r"/shop/product/classic-blue-mug",
        text=["Added", "Classic Blue Mug"],
        not_text="Checkout failed",
        js="document.querySelector('#added-message') !== null",
        state={"cart_count": 1, "cart.0.qty": 1},
        confirmed="click",
        answer="12\\.99",
    )
    out = await evaluate(
        good, ctx_session, answer="It costs $12.99", run_dir=run_dir, base_url=sites.url("/shop/")
    )
    assert out.passed, out.failures

    bad = Check(
        url="/checkout",
        text="Thank you",
        js="1 === 2",
        state={"cart_count": 2, "nothing.here": 1},
        confirmed="executeJS",
        answer="^7",
    )
    out = await evaluate(bad, ctx_session, answer="12.99", run_dir=run_dir, base_url=sites.url("/shop/"))
    assert not out.passed
    joined = "\n".join(out.failures)
    for part in (
        "url:",
        "text: 'Thank you'",
        "js: '1 === 2' is false",
        "cart_count = 1, expected 2",
        "nothing.here missing",
        "no executeJS asked",
        "answer:",
    ):
        assert part in joined, part


async def test_state_is_per_context(
    sites: Any, ctx_session: Any, browser_session: Any, tmp_path: Path
) -> None:
    """The state endpoint is fetched with the task's own cookies: another context sees an empty cart."""
    page = ctx_session.page
    await page.goto(sites.url("/shop/product/red-enamel-mug"))
    await page.click("#add-to-cart")
    await page.wait_for_selector("#added-message")
    other = await browser_session.new_context(downloads_dir=tmp_path / "dl")
    try:
        await other.page.goto(sites.url("/shop/"))
        check = Check(state={"cart_count": 1})
        assert (await evaluate(check, ctx_session, base_url=sites.url("/"))).passed
        assert not (await evaluate(check, other, base_url=sites.url("/"))).passed
    finally:
        await other.close()


async def test_text_includes_frames_and_shadow_roots(sites: Any, ctx_session: Any) -> None:
    await ctx_session.page.goto(sites.url("/frames/"))
    await ctx_session.page.wait_for_load_state("load")
    check = Check(text=["Cross-origin button", "Increment"])
    out = await evaluate(check, ctx_session)
    assert out.passed, out.failures


def test_confirmations_read_the_run_record(tmp_path: Path) -> None:
    run_dir = _run_dir(tmp_path, [("type", "auto"), ("uploadFile", "confirm")])
    assert [c["action"]["action"] for c in confirmations(run_dir)] == ["uploadFile"]
    assert confirmations(tmp_path / "missing") == []


def test_data_checks_compare_fields_of_the_structured_answer() -> None:
    from kite_browser.agent.batch.checks import data_failures

    data = [{"name": "White Porcelain Mug", "price": 6.49}, {"name": "Sky Blue Espresso Mug", "price": 7.25}]
    assert data_failures({"length": 2, "0.name": "White Porcelain Mug", "/1/price": 7.25}, data) == []
    assert data_failures({"0.price": 6.5, "2.name": "x"}, data) == [
        "data: 0.price = 6.49, expected 6.5",
        f"data: 2.name missing in {json.dumps(data)}",
    ]
    assert data_failures({"length": 2}, None) == ["data: the run gave no structured answer (done's data)"]
    assert Check.model_validate({"data": {"0.name": "x"}}).data == {"0.name": "x"}
