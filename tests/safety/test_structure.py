"""Sensitivity from structure, judged on real snapshots in a real Chromium: payment fields by autocomplete token
and name, a form's method and target (Enter in a plain field whose form pays), and the one judgement other
layers call (``SafetyPolicy.sensitivity``: a page, or a request's target)."""

from __future__ import annotations

import pytest
from playwright.async_api import Page

from kite_browser.agent.browser.actions import parse_action
from kite_browser.agent.browser.observation import Observation
from kite_browser.agent.browser.snapshot import Snapshotter
from kite_browser.safety.policy import ConfirmLevel, SafetyPolicy
from kite_browser.safety.text import fold
from tests.fixtures.browser import PagesServer


async def _snap(page: Page, url: str) -> Observation:
    await page.goto(url)
    return await Snapshotter().snapshot(page, include_all=True)


def _index(obs: Observation, id_: str) -> int:
    [index] = [e.index for e in obs.elements if e.attrs.get("id") == id_]
    return index


@pytest.mark.parametrize(
    ("field", "said"),
    [
        ('<input id=f autocomplete="transaction-amount">', "payment field"),
        ("<label>IBAN <input id=f></label>", "payment field"),
        ("<input id=f name=transfer_amount>", "payment field"),
        ("<label>Betrag <input id=f></label>", "payment field"),
        ('<input id=f autocomplete="section-pay cc-csc">', "payment card field"),
        ("<input id=f placeholder='CVC'>", "payment card field"),
    ],
)
async def test_a_payment_field_makes_its_page_sensitive_whatever_its_url(
    page: Page, pages_server: PagesServer, policy: SafetyPolicy, field: str, said: str
) -> None:
    obs = await _snap(
        page, pages_server.add("/notes/today", f"<p>Notes</p>{field}<button id=b>Confirm</button>")
    )
    assert said in (policy.page_sensitivity(obs) or ""), policy.page_sensitivity(obs)
    click = policy.evaluate(parse_action({"action": "click", "index": _index(obs, "b")}), obs)
    assert click.level is ConfirmLevel.CONFIRM, click


async def test_ordinary_fields_leave_a_page_as_it_is(
    page: Page, pages_server: PagesServer, policy: SafetyPolicy
) -> None:
    html = (
        "<form action=/search><input id=q name=q placeholder=Search></form>"
        "<label>Quantity <input id=n name=quantity type=number></label>"
        "<form action=/subscribe method=post><input id=e name=email></form>"
        "<label><input type=checkbox id=c> Remember me</label><button id=b>Confirm</button>"
    )
    obs = await _snap(page, pages_server.add("/blog/post", html))
    assert policy.page_sensitivity(obs) is None
    for raw in (
        {"action": "pressKey", "key": "Enter", "index": _index(obs, "q")},
        {"action": "pressKey", "key": "Enter", "index": _index(obs, "e")},
        {"action": "click", "index": _index(obs, "c")},
        {"action": "click", "index": _index(obs, "b")},
    ):
        assert policy.evaluate(parse_action(raw), obs).level is ConfirmLevel.AUTO, raw


FORMS = """<p>Send a note to a friend</p>
<form action="/transfer/execute" method="post"><input id=to name=to></form>
<form action="/notes/save"><input id=note name=note></form>"""


async def test_a_form_sent_by_post_to_a_paying_target_makes_its_page_sensitive(
    page: Page, pages_server: PagesServer, policy: SafetyPolicy
) -> None:
    obs = await _snap(page, pages_server.add("/friends", FORMS))
    by_id = {e.attrs.get("id"): e for e in obs.elements}
    assert by_id["to"].attrs.get("formmethod") == "post"
    assert (by_id["to"].attrs.get("form") or "").endswith("/transfer/execute")
    assert "formmethod" not in by_id["note"].attrs  # a GET form: its method is not noted
    why = policy.page_sensitivity(obs) or ""
    assert "sent by POST" in why and "/transfer/execute" in why, why
    enter = policy.evaluate(
        parse_action({"action": "pressKey", "key": "Enter", "index": by_id["to"].index}), obs
    )
    assert enter.level is ConfirmLevel.CONFIRM and enter.rule == "sensitive_enter", enter


async def test_enter_in_a_field_whose_form_pays_asks_on_an_ordinary_page(
    page: Page, pages_server: PagesServer, policy: SafetyPolicy
) -> None:
    """A GET form (not sensitive by structure) whose target path pays: Enter in its plain field asks, as its
    submit button would; a typed newline too."""
    html = '<p>Quick buy</p><form action="/checkout/pay/confirm"><input id=qty name=qty></form>'
    obs = await _snap(page, pages_server.add("/shop/item", html))
    assert policy.page_sensitivity(obs) is None
    index = _index(obs, "qty")
    enter = policy.evaluate(parse_action({"action": "pressKey", "key": "Enter", "index": index}), obs)
    typed = policy.evaluate(parse_action({"action": "type", "index": index, "text": "2\n"}), obs)
    for decision in (enter, typed):
        assert decision.level is ConfirmLevel.CONFIRM, decision
        assert "/checkout/pay/confirm pays" in decision.reasons[0], decision


def test_the_one_judgement_for_a_page_or_a_request_target(policy: SafetyPolicy) -> None:
    assert policy.sensitivity(None) is None
    assert policy.sensitivity(None, "http://127.0.0.1:9/api/transfer") is not None
    assert "pays" in (policy.target_sensitivity("/checkout/pay/confirm") or "")
    assert "deletes" in (policy.target_sensitivity("/account/delete", "http://127.0.0.1:9/x") or "")
    for ordinary in ("/search?q=pay", "/notes/save", "/account/login", "/cart/update"):
        assert policy.target_sensitivity(ordinary, "http://127.0.0.1:9/") is None, ordinary


@pytest.mark.parametrize(
    ("label", "folded"),
    [
        ("P\u0336a\u0337y n\u0334o\u0335w", "pay now"),  # a combining stroke on each letter
        ("Send\u2063money", "sendmoney"),  # an invisible separator
        ("Be\u0301sta\u0308tigen", "bestatigen"),
        ("결제하기", "결제하기"),  # Hangul comes back whole after NFKD
    ],
)
def test_fold_removes_combining_marks_and_format_characters(label: str, folded: str) -> None:
    assert fold(label) == folded
