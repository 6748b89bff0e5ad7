"""askHuman: with nobody to take over (batch, an Agent given no person) the run ends ``needs_human`` at once;
with a person, the run goes on from the page they leave, says how long they had it, and what they typed never
reaches the model or the record."""

from __future__ import annotations

import json
from pathlib import Path

from kite_browser.agent import Agent
from kite_browser.agent.base.result import StopReason
from kite_browser.safety.confirm import BatchConfirmer
from kite_browser.safety.handover import HandBack, HandOverRequest

CODE = "914527-otp"


def everything_on_disk(run_dir: str) -> str:
    return "\n".join(
        p.read_text(errors="replace") for p in Path(run_dir).rglob("*") if p.is_file() and p.suffix != ".png"
    )


async def test_with_nobody_to_take_over_the_run_ends_needs_human_at_once(
    make_config, ctx_session, sites, scripted_model
):
    scripted_model.script(
        [
            {"name": "askHuman", "arguments": {"question": "Solve the CAPTCHA on the sign-in page"}},
            {"name": "done", "arguments": {"success": True, "answer": "never reached"}},
        ]
    )
    agent = Agent(
        make_config(**{"llm.model": "kite/scripted"}), context=ctx_session, confirmer=BatchConfirmer()
    )
    result = await agent.run("sign in", start_url=sites.url("/forms/"))
    assert result.stop_reason is StopReason.NEEDS_HUMAN and not result.success
    assert "Solve the CAPTCHA" in result.message and result.steps == 1
    assert len(scripted_model.calls) == 1, "the model is not asked again"


class Person:
    """A person at the face: types the one-time code into the page, then hands the browser back."""

    def __init__(self, page, done: bool = True) -> None:
        self.page, self.done, self.asked = page, done, []

    async def confirm(self, request):
        raise AssertionError("nothing here needs a confirmation")

    async def notify(self, request) -> None:
        return None

    async def hand_over(self, request: HandOverRequest) -> HandBack:
        self.asked.append(request)
        await self.page.fill("#full-name", CODE)
        return HandBack(done=self.done, reason="" if self.done else "no phone at hand")


async def test_a_person_takes_over_and_what_they_typed_stays_theirs(
    make_config, ctx_session, sites, scripted_model
):
    scripted_model.script(
        [
            {"name": "askHuman", "arguments": {"question": "Type the one-time code from your phone"}},
            {"name": "getElementDetails", "arguments": {"indices": [0, 1, 2, 3, 4, 5]}},
            {"name": "done", "arguments": {"success": True, "answer": "the code is in"}},
        ]
    )
    person = Person(ctx_session.page)
    result = await Agent(
        make_config(**{"llm.model": "kite/scripted"}), context=ctx_session, confirmer=person
    ).run("enter the code", start_url=sites.url("/forms/"))
    assert result.success, result
    assert [r.question for r in person.asked] == ["Type the one-time code from your phone"]
    assert person.asked[0].url.endswith("/forms/")
    assert await ctx_session.page.input_value("#full-name") == CODE, "the run went on from the person's page"
    sent = json.dumps([c.model_dump() for c in scripted_model.calls], ensure_ascii=False)
    assert CODE not in sent, "what the person typed reached the model"
    assert "a person took over for" in sent, "the model is told the browser came back"
    assert CODE not in everything_on_disk(result.run_dir)
    steps = [json.loads(line) for line in (Path(result.run_dir) / "steps.jsonl").read_text().splitlines()]
    (handed,) = [a for s in steps for a in s.get("actions", []) if a["action"]["action"] == "askHuman"]
    assert handed["result"]["ok"] and handed["result"]["data"]["handed_back"] is True
    assert handed["result"]["data"]["human_s"] >= 0, "the record says how long the person had it"


async def test_a_person_who_cannot_does_not_end_the_run(make_config, ctx_session, sites, scripted_model):
    scripted_model.script(
        [
            {"name": "askHuman", "arguments": {"question": "Type the one-time code"}},
            {"name": "done", "arguments": {"success": False, "answer": "no code"}},
        ]
    )
    result = await Agent(
        make_config(**{"llm.model": "kite/scripted"}),
        context=ctx_session,
        confirmer=Person(ctx_session.page, done=False),
    ).run("enter the code", start_url=sites.url("/forms/"))
    assert result.stop_reason is StopReason.DONE and result.steps == 2
    sent = json.dumps([c.model_dump() for c in scripted_model.calls], ensure_ascii=False)
    assert "no phone at hand" in sent and CODE not in sent
