"""SVG snapshots of the main screens at 80x24 (and the wide run view): layout regressions show as diffs.

Nothing here starts an agent: the run view is fed fixed events (fixed clock, no tmp paths), so the pictures
are the same on every machine. Update with ``pytest tests/tui/test_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Input

from kite_browser.agent.config import load_config
from kite_browser.agent.tui.app import KiteApp
from kite_browser.agent.tui.confirm import ConfirmModal
from kite_browser.agent.tui.history import TaskEntry, TaskHistory
from tests.tui.screens import EVENTS, FINISH, fed_run_screen, place_order_request

SMALL = (80, 24)


def app(tmp_path: Any) -> KiteApp:
    history = TaskHistory(tmp_path / "history.json")
    for task, url in [
        ("Find the cheapest blue mug and report its price", "http://127.0.0.1:8765/shop/"),
        ("Buy the White Desk Lamp with the test card", "http://127.0.0.1:8765/shop/product/desk-lamp-white"),
        ("Change my display name to Ada", ""),
    ]:
        history.add(TaskEntry(task=task, start_url=url, model="kite/scripted"))
    config = load_config(overrides={"llm.model": "kite/scripted"}, env={})
    return KiteApp(
        config, history_path=tmp_path / "history.json", start=TaskEntry(task="", model="kite/scripted")
    )


async def steady(pilot: Any) -> None:
    """A blinking cursor is drawn or not depending on wall-clock time; a snapshot must not depend on it."""
    for screen in pilot.app.screen_stack:  # app.query() searches the default screen only, not the form
        for field in screen.query(Input):
            field.cursor_blink = False
    await pilot.pause()


def test_form(snap_compare, tmp_path):
    assert snap_compare(app(tmp_path), terminal_size=SMALL, run_before=steady)


async def run_without_task(pilot: Any) -> None:
    """ctrl+r with no task: the error is shown and the task field focused. ``focus()`` lands later, from the
    app's queue: under load (CI at load 20) the picture was taken before, without the field's cursor."""
    await steady(pilot)
    await pilot.press("ctrl+r")
    for _ in range(200):
        focused = pilot.app.focused
        if isinstance(focused, Input) and focused.id == "task":
            break
        await pilot.pause()
    await pilot.pause()


def test_form_with_missing_task(snap_compare, tmp_path):
    assert snap_compare(app(tmp_path), terminal_size=SMALL, run_before=run_without_task)


async def push(pilot: Any, *screens: Any, focused: str | None = None) -> None:
    """Push ``screens`` and wait until their events are fed and, if given, the widget ``#focused`` has the
    focus: under load the events were fed (CI at load 20), and the modal's button focused (``focus()`` lands
    from the app's queue; CI at stop 44), after the picture was taken."""
    await steady(pilot)
    for screen in screens:
        await pilot.app.push_screen(screen)
    for _ in range(200):
        fed = all(getattr(s, "fed", True) for s in screens)
        if fed and (focused is None or getattr(pilot.app.focused, "id", None) == focused):
            break
        await pilot.pause()
    else:
        raise AssertionError(f"screens not fed or #{focused} not focused: {pilot.app.focused!r}")
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()
    await pilot.pause()


def test_run_view(snap_compare, tmp_path):
    async def before(pilot: Any) -> None:
        await push(pilot, fed_run_screen(EVENTS))

    assert snap_compare(app(tmp_path), terminal_size=SMALL, run_before=before)


def test_run_view_finished(snap_compare, tmp_path):
    async def before(pilot: Any) -> None:
        await push(pilot, fed_run_screen([*EVENTS, FINISH]))

    assert snap_compare(app(tmp_path), terminal_size=SMALL, run_before=before)


def test_run_view_wide(snap_compare, tmp_path):
    async def before(pilot: Any) -> None:
        await push(pilot, fed_run_screen([*EVENTS, FINISH]))

    assert snap_compare(app(tmp_path), terminal_size=(120, 30), run_before=before)


def test_confirm_modal(snap_compare, tmp_path):
    async def before(pilot: Any) -> None:
        await push(pilot, fed_run_screen(EVENTS[:5]), ConfirmModal(place_order_request()), focused="deny")

    assert snap_compare(app(tmp_path), terminal_size=SMALL, run_before=before)
