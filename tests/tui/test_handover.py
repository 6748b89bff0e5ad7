"""The TUI hands the browser to its person: the modal says what to do, the run waits, and goes on after Done."""

from __future__ import annotations

from textual.widgets import Static

from kite_browser.agent.tui.handover import HandOverModal
from tests.tui.conftest import SIZE, wait_finished, wait_until
from tests.tui.turns import install

CODE = "553107-tui"


async def test_the_person_takes_over_in_the_tui_and_the_run_goes_on(make_app, sites, ctx_session):
    model = install(
        [
            [("askHuman", None, {"question": "Type the one-time code from your phone"})],
            [("done", None, {"success": True, "answer": "code entered"})],
        ]
    )
    app = make_app("enter the code", sites.url("/forms/"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(app.screen, HandOverModal))
        shown = "\n".join(str(w.render()) for w in app.screen.query(Static))
        assert "Type the one-time code from your phone" in shown and "/forms/" in shown
        assert app.running, "the run waits while the person has the browser"
        await ctx_session.page.fill("#full-name", CODE)  # the person, in the browser
        await pilot.press("d")
        result = await wait_finished(pilot, app)
    assert result.success, result
    assert len(model.prompts) == 2 and "a person took over for" in model.prompts[1]
    assert all(CODE not in p for p in model.prompts), "what the person typed reached the model"
