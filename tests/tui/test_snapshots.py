"""SVG snapshots of the main screens at 80x24 (and the wide run view): layout regressions show as diffs.

Nothing here starts an agent: the run view is fed fixed events (fixed clock, no tmp paths), so the pictures
are the same on every machine. Update with ``pytest tests/tui/test_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

import difflib
import html
import pickle
import re
from typing import Any

import pytest
from pytest_textual_snapshot import node_to_report_path
from textual.widgets import Input, Static

from kite_browser.agent.config import load_config
from kite_browser.agent.tui.app import KiteApp
from kite_browser.agent.tui.confirm import ConfirmModal
from kite_browser.agent.tui.history import TaskEntry, TaskHistory
from kite_browser.agent.tui.run_view import RunScreen
from tests.tui.screens import EVENTS, FINISH, fed_run_screen, place_order_request

SMALL = (80, 24)
TEXT = re.compile(r'<text class="([^"]*)"[^>]*y="([\d.]+)"[^>]*>(.*?)</text>')


def svg_lines(svg: str) -> list[str]:
    """The picture as text rows, each followed by its styles (class per run): what a diff can be read from."""
    rows: dict[float, list[tuple[str, str]]] = {}
    for style, y, text in TEXT.findall(svg):
        rows.setdefault(float(y), []).append((re.sub(r"^terminal-(\d+-)?", "", style), html.unescape(text)))
    out = []
    for y in sorted(rows):
        runs = rows[y]
        out.append("".join(t for _, t in runs).replace("\xa0", " ").rstrip())
        out.append("    styles: " + " ".join(f"{c}:{len(t)}" for c, t in runs))
    return out


@pytest.fixture
def snap(snap_compare: Any, request: Any) -> Any:
    """``snap_compare`` whose failure says what differs (text rows and their styles): CI keeps no HTML report."""

    def compare(*args: Any, **kwargs: Any) -> None:
        if snap_compare(*args, **kwargs):
            return
        data = pickle.loads(node_to_report_path(request.node).read_bytes())
        expected, actual = data[1], data[2]
        diff = difflib.unified_diff(
            svg_lines(expected), svg_lines(actual), "snapshot", "now", n=1, lineterm=""
        )
        raise AssertionError("the picture differs from the snapshot:\n" + "\n".join(diff))

    return compare


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


def test_form(snap, tmp_path):
    snap(app(tmp_path), terminal_size=SMALL, run_before=steady)


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


def test_form_with_missing_task(snap, tmp_path):
    snap(app(tmp_path), terminal_size=SMALL, run_before=run_without_task)


def detail_shown(screen: Any) -> bool:
    """A run view shows its last row's detail: set when the table's ``RowHighlighted`` message is handled,
    which comes after the feeding (without this wait the picture lacked the "ok: ..." line under load)."""
    if not isinstance(screen, RunScreen) or not screen.rows:
        return True
    return bool(screen.query_one("#detail", Static).content == screen.rows[-1].detail())


async def push(pilot: Any, *screens: Any, focused: str | None = None) -> None:
    """Push ``screens`` and wait until their events are fed and shown and, if given, the widget ``#focused``
    has the focus: under load the events were fed (CI at load 20), the modal's button focused (``focus()``
    lands from the app's queue; CI at stop 44) and the last row's detail shown (CI at stop 45) after the
    picture was taken."""
    await steady(pilot)
    for screen in screens:  # one at a time: a screen under a modal is laid out again only later
        await pilot.app.push_screen(screen)
        for _ in range(200):
            if getattr(screen, "fed", True) and detail_shown(screen):
                break
            await pilot.pause()
        else:
            raise AssertionError(f"{screen!r} not fed or its detail not shown")
        await pilot.pause()
    for _ in range(200):
        if focused is None or getattr(pilot.app.focused, "id", None) == focused:
            break
        await pilot.pause()
    else:
        raise AssertionError(f"#{focused} not focused: {pilot.app.focused!r}")
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()
    await pilot.pause()


def test_run_view(snap, tmp_path):
    async def before(pilot: Any) -> None:
        await push(pilot, fed_run_screen(EVENTS))

    snap(app(tmp_path), terminal_size=SMALL, run_before=before)


def test_run_view_finished(snap, tmp_path):
    async def before(pilot: Any) -> None:
        await push(pilot, fed_run_screen([*EVENTS, FINISH]))

    snap(app(tmp_path), terminal_size=SMALL, run_before=before)


def test_run_view_wide(snap, tmp_path):
    async def before(pilot: Any) -> None:
        await push(pilot, fed_run_screen([*EVENTS, FINISH]))

    snap(app(tmp_path), terminal_size=(120, 30), run_before=before)


def test_confirm_modal(snap, tmp_path):
    async def before(pilot: Any) -> None:
        await push(pilot, fed_run_screen(EVENTS[:5]), ConfirmModal(place_order_request()), focused="deny")

    snap(app(tmp_path), terminal_size=SMALL, run_before=before)
