"""The HTTP confirmer on its own (no browser): a question nobody answers is denied after its time-out, every
question and answer is an event of the run, ``--approve`` skips the question, and secrets never show."""

from __future__ import annotations

import asyncio

from kite_browser.agent.base.events import PageObserved
from kite_browser.agent.browser.actions import ExecuteJS
from kite_browser.agent.browser.observation import Element, Rect
from kite_browser.agent.config import SafetyConfig
from kite_browser.agent.server.confirm import HttpConfirmer, answer
from kite_browser.agent.server.run import Run
from kite_browser.agent.server.run_models import RunRequest
from kite_browser.safety.confirm import ConfirmRequest
from kite_browser.safety.policy import ConfirmLevel, Decision
from kite_browser.safety.secrets import SecretStore

SECRET = "hunter2-secret"


def _run() -> Run:
    return Run("r1", RunRequest(task="t"), model="kite/x", max_steps=3, domains=[])


def _request(name: str = "Pay") -> ConfirmRequest:
    return ConfirmRequest(
        action=ExecuteJS(code="return 1").to_json(),
        decision=Decision(level=ConfirmLevel.CONFIRM, reasons=["executeJS always asks"]),
        element=Element(
            index=3, tag="button", role="button", name=name, rect=Rect(x=0, y=0, width=9, height=9)
        ),
        url=f"http://127.0.0.1/pay?key={SECRET}",
    )


async def test_nobody_answering_denies_after_the_timeout() -> None:
    run = _run()
    await run.on_event(PageObserved(step=2, url="http://127.0.0.1/pay"))  # the run is at its step 2
    secrets = SecretStore.from_sources(SafetyConfig(), cli=[f"key={SECRET}"])
    got = await HttpConfirmer(run, timeout_s=0.05, secrets=secrets).confirm(_request())
    assert not got.approved and "nobody answered within 0.05 s" in got.reason
    assert [e.kind for e in run.events] == ["observe", "confirm", "confirmed"]
    asked, said = run.events[1].data, run.events[2].data
    assert asked["level"] == "confirm" and asked["element"]["name"] == "Pay" and asked["timeout_s"] == 0.05
    # the step it belongs to, and the action and its target worded as the TUI's modal words them
    assert asked["step"] == 2
    assert asked["action_text"] == 'executeJS code="return 1"' and asked["target"] == '[3] button "Pay"'
    assert SECRET not in str(asked) and "<secret>key</secret>" in asked["url"]
    assert said.pop("t") >= asked["t"] and said == {
        "id": asked["id"],
        "step": 2,
        "approved": False,
        "reason": got.reason,
    }
    assert run.pending == {} and answer(run, asked["id"], True, False, "") is None  # too late


async def test_an_answer_resolves_the_question_and_approve_flags_skip_it() -> None:
    run = _run()
    confirmer = HttpConfirmer(run, timeout_s=30)
    asking = asyncio.ensure_future(confirmer.confirm(_request()))
    asked = await anext(run.follow(0, keepalive_s=5))  # the question, as a stream follower sees it
    assert asked is not None and asked.kind == "confirm"
    cid = asked.data["id"]
    assert list(run.pending) == [cid]
    given = answer(run, cid, True, True, "")
    assert given is not None and given.approved and given.similar
    got = await asking
    assert got.approved and got.reason == "approved over HTTP"
    assert {**run.events[-1].data, "t": 0} == {
        "id": cid,
        "step": 0,
        "approved": True,
        "reason": "approved over HTTP",
        "t": 0,
    }
    before = len(run.events)
    flagged = await HttpConfirmer(run, timeout_s=30, approve=["executeJS"]).confirm(_request())
    assert flagged.approved and len(run.events) == before  # nobody was asked


def test_the_target_is_worded_as_the_tui_words_it() -> None:
    decision = Decision(level=ConfirmLevel.CONFIRM, reasons=["the page asks"])
    dialog = ConfirmRequest(
        action={"action": "dialog", "type": "confirm", "message": "Leave?"}, decision=decision
    )
    assert dialog.target_text() == 'the page\'s confirm dialog "Leave?"'
    away = ConfirmRequest(action={"action": "navigate", "url": "http://x.test/"}, decision=decision)
    assert away.target_text() == "(no element: http://x.test/)"
    code = ConfirmRequest(action={"action": "executeJS", "code": "return 1"}, decision=decision)
    assert code.target_text() == "", "an action that names no target has none (was '(no element: -)')"
    assert (
        _request("[b]Pay[/b]").target_text() == '[3] button "[b]Pay[/b]"'
    )  # plain: no markup, nothing escaped


async def test_a_tool_call_is_asked_under_the_tools_own_name() -> None:
    """A tool call is judged as the action it amounts to (chrome_evaluate as executeJS), but the person is asked
    about the call they made: its name in the action line, the reasons and the one-line description."""
    request = _request()
    request.action["tool"] = "chrome_evaluate"
    run = _run()
    await HttpConfirmer(run, timeout_s=0.05).confirm(request)
    asked = run.events[0].data
    assert asked["action_text"] == 'chrome_evaluate code="return 1"'
    assert asked["reasons"] == ["chrome_evaluate always asks"]
    assert (
        asked["description"].startswith('chrome_evaluate on "Pay"')
        and "executeJS" not in asked["description"]
    )
    # the agent's own action keeps its name
    assert _request().call() == {"action": "executeJS", "code": "return 1"} and _request().why() == [
        "executeJS always asks"
    ]
