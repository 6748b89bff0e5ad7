"""The task form: validation, the persisted recent tasks and rerunning one with one key."""

from __future__ import annotations

from textual.widgets import Static

from kite_browser.agent.tui.form import TaskScreen
from kite_browser.agent.tui.history import TaskEntry, TaskHistory
from kite_browser.agent.tui.run_view import column_widths
from tests.tui.conftest import SIZE, wait_finished


async def test_empty_task_is_refused_on_the_form(make_app):
    app = make_app("   ")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert isinstance(app.screen, TaskScreen) and app.worker is None
        assert "Say what Kite should do" in str(app.screen.query_one("#form-error", Static).render())
        await pilot.press("enter")  # enter in the task field submits the form too
        await pilot.pause()
        assert app.worker is None


async def test_rerun_a_recent_task_with_r(make_app, sites, scripted_model, tmp_path):
    scripted_model.script([], errors={1: "auth"})
    recent = TaskEntry(task="Open the shop", start_url=sites.url("/shop/"), model="kite/scripted")
    TaskHistory(tmp_path / "history.json").add(recent)
    app = make_app("something else")
    async with app.run_test(size=SIZE) as pilot:
        assert app.history.entries == [recent]
        await pilot.press("ctrl+t", "r")
        result = await wait_finished(pilot, app)
        assert app.run_screen.task_text == "Open the shop"
    assert result.stop_reason == "model_error"
    assert "/shop/" in (result.final_url or "")
    assert TaskHistory(tmp_path / "history.json").entries[0] == recent


def test_columns_fit_the_terminal():
    for width in (80, 99, 100, 160):
        widths = column_widths(width)
        assert sum(widths.values()) + 2 * len(widths) + 2 <= width, (width, widths)
        assert widths["action"] >= 18 and widths["result"] >= 18
    assert "cost" not in column_widths(80) and "cost" in column_widths(120)


async def test_a_run_that_cannot_start_says_why(tui_config, tmp_path):
    from kite_browser.agent.base.errors import UsageError
    from kite_browser.agent.tui.app import KiteApp

    def factory(config, confirmer, on_event):
        raise UsageError("no model is configured")

    start = TaskEntry(task="Look", model="kite/scripted")
    app = KiteApp(tui_config, agent_factory=factory, history_path=tmp_path / "h.json", start=start)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+r")
        result = await wait_finished(pilot, app)
        final = str(app.run_screen.query_one("#final", Static).render())
        assert app.is_running
    assert result.stop_reason == "error" and "no model is configured" in final
    assert app.run_screen.rows[0].action == "run" and not app.run_screen.rows[0].ok
