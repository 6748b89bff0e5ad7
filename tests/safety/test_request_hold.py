"""Holding the request, not only the click (agent/browser/holds.py): attack pages that pay, delete or send
through a checkbox, a radio, a select, a drag, Enter in a plain field, a timer after a harmless click, a
double-click's second click, a fetch, a beacon, a ping and a form submitted by script, each run through
``Agent.run`` (scripted model) with the batch confirmer: the request never reaches the server and the run
reports what was declined. An approved action's request goes through, asked once."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from kite_browser.agent.run.loop import Agent
from kite_browser.safety.confirm import BatchConfirmer
from tests.safety.request_pages import CASES, HEAD, Case, RecordingServer

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server() -> Iterator[RecordingServer]:
    srv = RecordingServer()
    yield srv
    srv.stop()


def _script(case: Case) -> list[dict]:
    return [*case.actions, {"name": "done", "arguments": {"success": True, "answer": "done"}}]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
async def test_a_declined_request_never_reaches_the_server(
    kite_config, ctx_session, server: RecordingServer, scripted_model, case: Case
) -> None:
    url = server.add(case.path, case.html)
    scripted_model.script(_script(case))
    confirmer = BatchConfirmer([])
    before = len(server.arrived(case.forbidden))  # the server is the module's: another test approved one
    result = await Agent(kite_config(), context=ctx_session, confirmer=confirmer).run(
        f"look around ({case.name})", start_url=url
    )
    assert result.stop_reason == "done", result
    assert len(server.arrived(case.forbidden)) == before  # the server never saw it
    assert server.arrived(case.path) == ["GET"]  # the page itself did load
    assert not result.success and result.declined, result
    said = json.dumps([d.model_dump() for d in result.declined])
    assert case.forbidden in said, said  # held at the network layer, and reported by the request it held
    assert all(d.outcome == "declined" for d in result.declined)


async def test_an_approved_click_covers_the_request_it_sends(
    kite_config, ctx_session, server: RecordingServer, scripted_model
) -> None:
    """ "Place order" asks at the click (approved here by name); the post it sends is covered by that
    approval: it arrives, and nobody is asked about it a second time."""
    html = (
        HEAD + "<title>Pay</title><p>Total: $12.00</p><button id=pay>Place order</button><script>"
        "pay.onclick = () => fetch('/api/place-order', {method: 'POST', body: 'o'});</script>"
    )
    url = server.add("/checkout/pay", html)
    scripted_model.script(
        [
            {"name": "click", "arguments": {"selector": "#pay"}},
            {"name": "done", "arguments": {"success": True, "answer": "ordered"}},
        ]
    )
    confirmer = BatchConfirmer(["click"])  # approves clicks, never a held request by itself
    result = await Agent(kite_config(), context=ctx_session, confirmer=confirmer).run("order", start_url=url)
    assert result.success and result.declined == [], result
    assert server.arrived("/api/place-order") == ["POST"]
    assert [req.action["action"] for req, _ in confirmer.asked] == ["click"]


async def test_a_request_the_user_approves_goes_through(
    kite_config, ctx_session, server: RecordingServer, scripted_model
) -> None:
    case = next(c for c in CASES if c.name == "checkbox-change")
    url = server.add("/checkout/extras-approved", case.html)
    scripted_model.script(_script(case))
    confirmer = BatchConfirmer(["confirm"])
    before = len(server.arrived("/api/charge"))
    result = await Agent(kite_config(), context=ctx_session, confirmer=confirmer).run("gift", start_url=url)
    assert result.success and result.declined == [], result
    assert len(server.arrived("/api/charge")) == before + 1
    asked = [req.action for req, _ in confirmer.asked]
    assert [a["action"] for a in asked] == ["request"] and asked[0]["url"].endswith("/api/charge")


async def test_ordinary_posts_on_ordinary_pages_are_not_held(
    kite_config, ctx_session, server: RecordingServer, scripted_model
) -> None:
    html = (
        HEAD + "<title>Notes</title><button id=save>Save note</button><script>"
        "save.onclick = () => fetch('/api/notes', {method: 'POST', body: 'n'});</script>"
    )
    url = server.add("/notes/plain", html)
    scripted_model.script(
        [
            {"name": "click", "arguments": {"selector": "#save"}},
            {"name": "done", "arguments": {"success": True, "answer": "saved"}},
        ]
    )
    confirmer = BatchConfirmer([])
    result = await Agent(kite_config(), context=ctx_session, confirmer=confirmer).run("save", start_url=url)
    assert result.success and result.declined == [], result
    assert server.arrived("/api/notes") == ["POST"] and confirmer.asked == []


@pytest.mark.parametrize("name", ["checkbox-change", "a-ping", "form-submission-by-script"])
async def test_held_under_an_active_domain_policy_too(
    kite_config, ctx_session, server: RecordingServer, scripted_model, name: str
) -> None:
    """With a domain policy, Playwright routes every request as well: the hold still fails the request
    before the route fetches it."""
    case = next(c for c in CASES if c.name == name)
    url = server.add(case.path + "-domains", case.html)
    scripted_model.script(_script(case))
    config = kite_config(**{"safety.blocked_domains": ["evil.test"]})
    before = len(server.arrived(case.forbidden))  # the server is the module's: another test approved one
    result = await Agent(config, context=ctx_session, confirmer=BatchConfirmer([])).run("look", start_url=url)
    assert len(server.arrived(case.forbidden)) == before
    assert case.forbidden in json.dumps([d.model_dump() for d in result.declined]), result


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("/account/login-form", ""),
        ("/account/settings-form", ""),
        ("/account/home", "<a href='/account/delete'>Delete account</a>"),  # sensitive by its words
    ],
    ids=["sign-in", "settings", "account-page"],
)
async def test_a_sign_in_or_settings_form_posts_without_asking(
    kite_config, ctx_session, server: RecordingServer, scripted_model, path: str, text: str
) -> None:
    """A sensitive page that neither takes payment nor shows a price (sign-in, settings, an account page
    that offers deleting the account) asks for submit-like clicks, not for every post: the form a harmless
    click sends arrives, nobody asked."""
    html = (
        HEAD
        + f"<title>Form</title>{text}<form method=post action='{path}/done'><input name=email value=a@b.c>"
        "<button id=go>Log in</button></form>"
    )
    url = server.add(path, html)
    scripted_model.script(
        [
            {"name": "click", "arguments": {"selector": "#go"}},
            {"name": "done", "arguments": {"success": True, "answer": "in"}},
        ]
    )
    confirmer = BatchConfirmer([])
    result = await Agent(kite_config(), context=ctx_session, confirmer=confirmer).run("go", start_url=url)
    assert result.declined == [] and confirmer.asked == [], result
    assert server.arrived(f"{path}/done") == ["POST"]
