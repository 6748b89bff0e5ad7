"""Reporting keeps every refusal (agent/run/refusals.py): a refusal is settled only by the same action (same kind,
same target element, same values) run later with permission, never by another action with the same name on
the same site. Through ``Agent.run`` on a real page, and through ``kite batch``'s results."""

from __future__ import annotations

from typing import Any

from kite_browser.agent.llm.model import ModelView
from kite_browser.agent.llm.testing import FunctionModel
from kite_browser.agent.run.loop import Agent
from kite_browser.safety.confirm import BatchConfirmer, ConfirmAnswer, ConfirmRequest
from tests.fixtures.browser import PagesServer

PAGE = """<!doctype html><meta charset=utf-8><title>Orders</title>
<ul><li id=a>Order A <button id=del-a>Delete</button></li><li id=b>Order B <button id=del-b>Delete</button></li></ul>
<script>
for (const k of ["a", "b"]) document.getElementById("del-" + k).onclick = () => document.getElementById(k).remove();
</script>"""


class _NoThenYes(BatchConfirmer):
    """Declines the first question, approves every later one."""

    async def confirm(self, request: ConfirmRequest) -> ConfirmAnswer:
        answer = ConfirmAnswer(approved=bool(self.asked), reason="" if self.asked else "the user said no")
        self.asked.append((request, answer))
        return answer


def _clicks(first: int, second: int) -> FunctionModel:
    """Clicks the ``first``, then the ``second`` "Delete" button by its index (as a model would), then done."""

    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        buttons = [e.index for e in view.observation.elements if e.name == "Delete"]
        if view.step <= 2:
            return {"action": "click", "index": buttons[(first, second)[view.step - 1]]}
        return {"action": "done", "success": True, "answer": "tidied"}

    return FunctionModel(fn)


async def test_a_later_approved_action_with_the_same_name_does_not_erase_a_refusal(
    kite_config, ctx_session, pages_server: PagesServer
) -> None:
    url = pages_server.add("/account/orders-kept", PAGE)  # a sensitive page: Delete asks
    confirmer = _NoThenYes()  # both buttons read "Delete": the first click is declined, the other approved
    agent = Agent(
        kite_config(**{"llm.model": ""}), model=_clicks(0, 1), context=ctx_session, confirmer=confirmer
    )
    result = await agent.run("tidy", start_url=url)
    assert len(confirmer.asked) == 2  # both clicks asked: one declined, one approved
    assert await ctx_session.page.locator("#a").count() == 1  # the declined one did not run
    assert await ctx_session.page.locator("#b").count() == 0
    assert not result.success, result
    assert [(d.step, d.outcome) for d in result.declined] == [(1, "declined")], result.declined
    assert "Delete" in result.declined[0].action


async def test_the_same_action_approved_later_settles_its_refusal(
    kite_config, ctx_session, pages_server: PagesServer
) -> None:
    url = pages_server.add("/account/orders-settled", PAGE)
    confirmer = _NoThenYes()
    agent = Agent(
        kite_config(**{"llm.model": ""}), model=_clicks(0, 0), context=ctx_session, confirmer=confirmer
    )
    result = await agent.run("tidy", start_url=url)
    assert [a.approved for _, a in confirmer.asked] == [False, True]
    assert await ctx_session.page.locator("#a").count() == 0
    assert result.success and result.declined == [], result
