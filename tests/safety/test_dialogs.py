"""A page's own confirm() in a real Chromium, end to end through ``Agent.run`` (scripted model over litellm):
an innocuous-looking button whose confirm() text is destructive is dismissed unless the user approves; a
harmless confirm() is accepted without asking; the action's result says which way it went and why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kite_browser.agent.run.loop import Agent
from kite_browser.safety.confirm import BatchConfirmer
from tests.fixtures.browser import PagesServer

PAGE = """<!doctype html><meta charset=utf-8><title>Notes</title>
<ul><li id=item>Milk</li></ul><p id=count>0</p>
<button id=tidy>Tidy up</button><button id=more>More</button>
<script>
document.getElementById("tidy").onclick = () => {
  if (confirm("Are you sure you want to delete this item?")) document.getElementById("item").remove();
};
document.getElementById("more").onclick = () => {
  if (confirm("Show 10 more results?")) document.getElementById("count").textContent = "10";
};
</script>"""


def _results(run_dir: str | None) -> list[dict]:
    steps = [json.loads(line) for line in (Path(str(run_dir)) / "steps.jsonl").read_text().splitlines()]
    return [a["result"] for s in steps[1:] for a in s.get("actions", []) if a["action"]["action"] == "click"]


@pytest.mark.parametrize("approve", [False, True], ids=["declined", "approved"])
async def test_sensitive_confirm_is_dismissed_unless_the_user_approves(
    kite_config, ctx_session, pages_server: PagesServer, scripted_model, approve: bool
) -> None:
    url = pages_server.add("/notes", PAGE)
    scripted_model.script(
        [
            {"name": "click", "arguments": {"selector": "#tidy"}},
            {"name": "click", "arguments": {"selector": "#more"}},
            {"name": "done", "arguments": {"success": True, "answer": "tidied"}},
        ]
    )
    confirmer = BatchConfirmer(["confirm"] if approve else [])
    result = await Agent(kite_config(), context=ctx_session, confirmer=confirmer).run(
        "tidy my notes", start_url=url
    )
    assert result.stop_reason == "done", result

    page = ctx_session.page
    assert await page.locator("#item").count() == (0 if approve else 1)  # the deletion ran only if approved
    assert await page.inner_text("#count") == "10"  # the harmless confirm was accepted without asking
    asked = [req.action for req, _ in confirmer.asked]
    assert asked == [
        {"action": "dialog", "type": "confirm", "message": "Are you sure you want to delete this item?"}
    ]

    tidy, more = _results(result.run_dir)
    dialog = tidy["effects"]["dialog"]
    assert dialog["handled"] == ("accepted" if approve else "dismissed")
    assert ("approved" if approve else "not confirmed: nobody is asked in a batch run") in dialog["reason"]
    assert more["effects"]["dialog"]["handled"] == "accepted" and more["effects"]["dialog"]["reason"] is None
    second_prompt = json.dumps(scripted_model.calls[1].model_dump())
    assert ("accepted, the user approved" if approve else "dismissed, not confirmed") in second_prompt


class _SlowPerson(BatchConfirmer):
    """Approves, but only after thinking longer than the hang watchdog would allow a silent page."""

    async def confirm(self, request):  # type: ignore[no-untyped-def]
        import asyncio

        await asyncio.sleep(2.0)  # a person reading the question, not synchronisation
        return await super().confirm(request)


async def test_a_person_answering_a_dialog_is_not_a_hung_page(
    kite_config, ctx_session, pages_server: PagesServer, scripted_model
) -> None:
    """While the user is asked about a page's confirm(), the page is blocked by design: the watchdog must not
    close the tab as unresponsive (``awaiting_user``)."""
    url = pages_server.add("/notes-slow", PAGE)
    scripted_model.script(
        [
            {"name": "click", "arguments": {"selector": "#tidy"}},
            {"name": "done", "arguments": {"success": True, "answer": "tidied"}},
        ]
    )
    config = kite_config(**{"browser.hang_timeout_ms": 300})
    result = await Agent(config, context=ctx_session, confirmer=_SlowPerson(["confirm"])).run(
        "tidy my notes", start_url=url
    )
    assert result.stop_reason == "done", result
    (tidy,) = _results(result.run_dir)
    assert tidy["ok"], tidy
    assert tidy["effects"]["dialog"]["handled"] == "accepted"
    assert await ctx_session.page.locator("#item").count() == 0  # the approved deletion ran in the same tab
