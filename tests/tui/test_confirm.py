"""Pilot tests of the confirmation modal with a real browser on the bundled shop."""

from __future__ import annotations

from textual.widgets import Static

from kite_browser.agent.tui.confirm import ConfirmModal
from tests.fixtures.sites import site_state
from tests.tui.conftest import SIZE, rows, wait_finished, wait_until
from tests.tui.turns import install

CARD = {
    "card_name": "Ada Lovelace",
    "card_number": "4242 4242 4242 4242",
    "card_expiry": "12/30",
    "card_cvc": "123",
}
CHECKOUT = [
    [("click", "Add to cart", {})],
    [("click", "View cart", {})],
    [("click", "Proceed to checkout", {})],
    [
        ("type", "Full name", {"text": "Ada Lovelace"}),
        ("type", "Address", {"text": "1 Analytical Way, London"}),
        ("type", "Email", {"text": "ada@example.com"}),
        ("type", "Name on card", {"text": "<secret>card_name</secret>"}),
        ("type", "Card number", {"text": "<secret>card_number</secret>"}),
        ("type", "Expiry", {"text": "<secret>card_expiry</secret>"}),
        ("type", "CVC", {"text": "<secret>card_cvc</secret>"}),
    ],
    [("click", "Place order", {})],
]
TASK = "Buy the White Desk Lamp"


def modal_text(app) -> str:
    return "\n".join(str(w.render()) for w in app.screen.query(Static))


async def open_modal(make_app, sites, turns):
    model = install(turns)
    app = make_app(TASK, sites.url("/shop/product/desk-lamp-white"), secrets=CARD)
    return model, app


async def test_confirm_approve_places_the_order(make_app, sites, ctx_session):
    done = [("done", None, {"success": True, "answer": "order placed"})]
    _, app = await open_modal(make_app, sites, [*CHECKOUT, done])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmModal))
        shown = modal_text(app)
        assert 'button "Place order"' in shown and "/shop/checkout" in shown
        assert "Why" in shown and app.screen.request.decision.reasons
        assert app.running, "the agent must wait while the modal is open"
        await pilot.press("y")
        result = await wait_finished(pilot, app)
    assert result.success, result
    state = await site_state(ctx_session.page, sites)
    assert len(state["orders"]) == 1 and state["orders"][0]["card_last4"] == "4242"
    assert "/shop/order/" in ctx_session.page.url
    assert "Place order" in rows(app)[-2] and "confirm ok" in rows(app)[-2]


async def test_confirm_deny_does_not_run_and_the_model_is_told(make_app, sites, ctx_session):
    done = [("done", None, {"success": False, "answer": "the user did not allow the order"})]
    model, app = await open_modal(make_app, sites, [*CHECKOUT, done])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("n")
        result = await wait_finished(pilot, app)
    assert not result.success and result.stop_reason == "done"
    assert (await site_state(ctx_session.page, sites))["orders"] == []
    assert "/shop/checkout" in ctx_session.page.url
    assert "declined" in model.prompts[-1] and "denied in the TUI" in model.prompts[-1]
    assert "Place order" in rows(app)[-2] and "FAIL" in rows(app)[-2]


JS = "document.body.dataset.runs = String(Number(document.body.dataset.runs || 0) + 1); return document.body.dataset.runs"


async def test_approve_similar_is_not_asked_again(make_app, sites, ctx_session):
    turns = [
        [("executeJS", None, {"code": JS})],
        [("executeJS", None, {"code": JS})],
        [("done", None, {"success": True, "answer": "ran twice"})],
    ]
    install(turns)
    app = make_app("Run the script twice", sites.url("/shop/"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("a")
        result = await wait_finished(pilot, app)
    assert result.success, result
    assert len(app.confirmer.asked) == 1, "the second similar action must not be asked again"
    assert await ctx_session.page.evaluate("document.body.dataset.runs") == "2"
    js_rows = [r for r in rows(app) if r.split()[1] == "executeJS"]
    assert len(js_rows) == 2 and all(" ok " in r for r in js_rows)
