"""TUI test helpers: a test config (fake model, real headless Chromium, runs in tmp), an app factory that
hands the agent the test's browser context, and a deadline-bound wait on app state."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from kite_browser.agent.config import KiteConfig
from kite_browser.agent.run.loop import Agent
from kite_browser.agent.run.record import RunResult
from kite_browser.agent.tui.app import KiteApp
from kite_browser.agent.tui.history import TaskEntry

SIZE = (100, 30)


@pytest.fixture
def tui_config(kite_config: Any) -> KiteConfig:
    return kite_config(**{"llm.model": "kite/turns"})


@pytest.fixture
def make_app(tui_config: KiteConfig, tmp_path: Path, ctx_session: Any) -> Callable[..., KiteApp]:
    """``make_app(task, start_url, model=..., own_browser=False, secrets=None)``: the app with the form prefilled. By
    default the agent uses the test's browser context (so the site state can be read afterwards)."""

    def make(
        task: str,
        start_url: str = "",
        *,
        model: str = "kite/turns",
        own_browser: bool = False,
        secrets: dict[str, str] | None = None,
    ) -> KiteApp:
        config = tui_config.model_copy(deep=True)
        config.safety.secrets = dict(secrets or {})

        def factory(config: KiteConfig, confirmer: Any, on_event: Any) -> Agent:
            context = None if own_browser else ctx_session
            return Agent(config, confirmer=confirmer, on_event=on_event, context=context)

        start = TaskEntry(task=task, start_url=start_url, model=model)
        return KiteApp(config, agent_factory=factory, history_path=tmp_path / "history.json", start=start)

    return make


async def wait_until(pilot: Pilot[Any], condition: Callable[[], Any], within: float = 60.0) -> None:
    """Let the app process messages until ``condition()`` holds; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {within}s: {condition}")
        await pilot.pause(0.05)
    await pilot.pause()


async def wait_finished(pilot: Pilot[Any], app: KiteApp, within: float = 60.0) -> RunResult:
    """Wait until the run is over and the final view is shown; return the shown result."""
    await wait_until(
        pilot,
        lambda: app.worker is not None and not app.running and app.run_screen.result is not None,
        within,
    )
    result = app.run_screen.result
    assert result is not None
    return result


def rows(app: KiteApp) -> list[str]:
    """The steps table as plain text, one string per row."""
    return [
        f"{r.step} {r.action} {r.level} {'ok' if r.ok else 'FAIL'} {r.result}" for r in app.run_screen.rows
    ]
