"""Pilot tests of whole runs: the form starts a run in a worker; the live view and the final view."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import DataTable, Static

from tests.tui.conftest import SIZE, rows, wait_finished
from tests.tui.turns import install

SEARCH = [
    [("type", "Search", {"text": "blue mug"}), ("pressKey", None, {"key": "Enter"})],
    [("done", None, {"success": True, "answer": "Sky Blue Espresso Mug, $7.25"})],
]


async def test_a_run_to_completion(make_app, sites, tmp_path):
    model = install(SEARCH)
    app = make_app("Find the cheapest blue mug", sites.url("/shop/"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+r")
        result = await wait_finished(pilot, app)
        assert result.success and result.stop_reason == "done", result
        table = app.run_screen.query_one("#steps", DataTable)
        assert table.row_count == 3 and len(model.prompts) == 2
        assert rows(app)[0].startswith("1 type [") and "blue mug" in rows(app)[0]
        assert "pressKey" in rows(app)[1] and rows(app)[2].startswith("2 done")
        final = str(app.run_screen.query_one("#final", Static).render())
        assert "success" in final and "Sky Blue Espresso Mug" in final and result.run_dir in final
        assert "blue mug" in str(app.run_screen.query_one("#page", Static).render()).lower()
        # the task went to the persisted history, and n opens the form with it as the first recent task
        saved = json.loads((tmp_path / "history.json").read_text())
        assert saved[0]["task"] == "Find the cheapest blue mug"
        await pilot.press("n")
        await pilot.pause()
        assert type(app.screen).__name__ == "TaskScreen"
    run = json.loads((Path(result.run_dir) / "run.json").read_text())
    assert run["result"]["stop_reason"] == "done"


async def test_a_done_with_success_false_is_marked_failed_not_ticked(make_app, sites):
    install([[("done", None, {"success": False, "answer": "no such mug"})]])
    app = make_app("Find a purple mug", sites.url("/shop/"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+r")
        result = await wait_finished(pilot, app)
        assert not result.success, result
        done = [r for r in app.run_screen.rows if r.action.startswith("done")]
        assert len(done) == 1 and not done[0].ok, rows(app)
        assert "✗" in done[0].cells()[3] and "✓" not in done[0].cells()[3]
