"""Stopping a run (Esc) and a model error: the app never crashes, the record is saved, the final view shows."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import Static

from kite_browser.agent.browser.env import BrowserEnv
from tests.tui.conftest import SIZE, rows, wait_finished, wait_until


async def test_esc_stops_mid_run(make_app, sites, scripted_model):
    script = scripted_model.script([{"name": "done", "arguments": {"success": True}}], latency_s=600)
    app = make_app("Wait forever", sites.url("/shop/"), model="kite/scripted", own_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: len(script.received) == 1)  # the model call is in flight
        env = app.agent.env
        assert isinstance(env, BrowserEnv)
        ctx = env.ctx
        browser = ctx.page.context.browser
        assert ctx.is_alive and app.running and browser is not None and browser.is_connected()
        await pilot.press("escape")
        result = await wait_finished(pilot, app, within=30)
        final = str(app.run_screen.query_one("#final", Static).render())
        # Esc again (nothing runs any more) and n work on the final view
        await pilot.press("escape")
        assert app.run_screen.result is result
    assert result.stop_reason == "interrupted" and not result.success
    assert "stopped" in final and "interrupted" in final and result.run_dir in final
    run = json.loads((Path(result.run_dir) / "run.json").read_text())
    assert run["result"]["stop_reason"] == "interrupted"
    assert not ctx.is_alive
    assert not browser.is_connected(), "the browser was left running"


async def test_model_error_is_an_error_row(make_app, sites, scripted_model):
    scripted_model.script([], errors={1: "auth"})
    app = make_app("Look at the shop", sites.url("/shop/"), model="kite/scripted")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+r")
        result = await wait_finished(pilot, app)
        assert app.is_running and type(app.screen).__name__ == "RunScreen"
        final = str(app.run_screen.query_one("#final", Static).render())
    assert result.stop_reason == "model_error"
    assert len(rows(app)) == 1 and rows(app)[0].startswith("1 model call - FAIL")
    assert "invalid API key" in rows(app)[0]
    assert "failed" in final and "model_error" in final


async def test_q_while_running_stops_then_quits(make_app, sites, scripted_model):
    script = scripted_model.script([], latency_s=600)
    app = make_app("Wait forever", sites.url("/shop/"), model="kite/scripted")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: len(script.received) == 1)
        await pilot.press("q")
        await wait_until(pilot, lambda: not app.is_running, within=30)
    assert app.result is not None and app.result.stop_reason == "interrupted"
