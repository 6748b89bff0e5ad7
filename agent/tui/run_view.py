"""The live run view: the current page, one row per step, running totals and, at the end, the final view.

The screen is a function of the events it is fed (``on_agent_event``) and of ``show_result`` /
``show_failure``; the app owns the worker. ``clock`` is injectable so that snapshots show fixed timings.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from kite_browser.agent.base.events import (
    ActionFinished,
    ModelReplied,
    PageObserved,
    ReplyRejected,
    RunFinished,
)
from kite_browser.agent.base.result import RunResult, StopReason
from kite_browser.agent.tui.format import StepRow, error_row, final_text, page_panel, totals_line

if TYPE_CHECKING:
    from kite_browser.agent.base.events import RunEvent

WIDE = 100
"""From this terminal width on, the table also has a cost column."""

FIXED = {"#": 3, "level": 7, "tok": 6, "cost": 6, "s": 4}


def column_widths(width: int) -> dict[str, int]:
    """Column widths that fill ``width`` cells (the action and result columns share what is left)."""
    keys = ["#", "action", "level", "result", "tok", "cost", "s"]
    if width < WIDE:
        keys.remove("cost")
    fixed = sum(FIXED.get(k, 0) for k in keys)
    free = max(30, width - fixed - 2 * len(keys) - 2)  # cell padding and the scrollbar
    action = free * 9 // 20
    return {k: FIXED.get(k) or (action if k == "action" else free - action) for k in keys}


class RunScreen(Screen[None]):
    """One row per step; the current page; running totals; the final answer."""

    BINDINGS = [
        Binding("escape", "app.stop_run", "Stop"),
        Binding("ctrl+c", "app.stop_run", "Stop", show=False, priority=True),
        Binding("n", "app.new_task", "New task"),
        Binding("q", "app.quit_kite", "Quit"),
    ]

    def __init__(self, task: str, *, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.task_text, self.clock = task, clock
        self.rows: list[StepRow] = []
        self.tokens, self.steps, self.actions = 0, 0, 0
        self.cost: float | None = None
        self.result: RunResult | None = None
        self._t_step = clock()
        self._step_usage: tuple[int, float | None] | None = None
        self._widths: dict[str, int] = {}

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        yield Static(f"[b]Task[/b] {escape(self.task_text)}", id="task-line")
        yield Static("[dim]starting the browser…[/]", id="page")
        yield DataTable(id="steps", cursor_type="row", zebra_stripes=True)
        yield Static("", id="detail")
        yield Static(totals_line(0, 0, 0, None), id="totals")
        yield Static("", id="final")
        yield Footer()

    def on_mount(self) -> None:
        self._layout_columns(self.app.size.width)

    def on_resize(self) -> None:
        self._layout_columns(self.size.width)

    def _layout_columns(self, width: int) -> None:
        widths = column_widths(width)
        if widths == self._widths:
            return
        self._widths = widths
        table = self.query_one("#steps", DataTable)
        table.clear(columns=True)
        for key, w in widths.items():
            table.add_column(key, width=w, key=key)
        for row in self.rows:
            self._add(table, row)

    def _add(self, table: DataTable[str], row: StepRow) -> None:
        cells = dict(zip(["#", "action", "level", "result", "tok", "cost", "s"], row.cells(), strict=True))
        table.add_row(*(cells[k] for k in self._widths))

    # --- feeding ------------------------------------------------------------------------------------
    def on_agent_event(self, event: RunEvent) -> None:
        if isinstance(event, PageObserved):
            self._t_step, self.steps, self._step_usage = self.clock(), event.step, None
            self.query_one("#page", Static).update(page_panel(event))
        elif isinstance(event, ModelReplied):
            u = event.usage
            self.tokens += u.tokens
            if u.cost_usd is not None:
                self.cost = (self.cost or 0.0) + u.cost_usd
            self._step_usage = (u.tokens, u.cost_usd)
        elif isinstance(event, ActionFinished):
            self.actions += 1
            self.add_row(event.step, event.action, event.level, event.went_well, event.message)
        elif isinstance(event, ReplyRejected):
            message = event.message or event.error or "the reply could not be used"
            self.add_row(event.step, "(reply not understood)", "-", False, message)
        elif isinstance(event, RunFinished):
            self.show_result(event.result)
        self._update_totals()

    def add_row(self, step: int, action: str, level: str, ok: bool, message: str) -> None:
        usage, self._step_usage = self._step_usage, None
        tokens, cost = usage if usage is not None else (None, None)
        row = StepRow(step, action, level, ok, message, tokens, cost, self.clock() - self._t_step)
        self.rows.append(row)
        table = self.query_one("#steps", DataTable)
        self._add(table, row)
        table.move_cursor(row=table.row_count - 1)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if 0 <= event.cursor_row < len(self.rows):
            self.query_one("#detail", Static).update(self.rows[event.cursor_row].detail())

    def _update_totals(self, note: str = "") -> None:
        line = totals_line(self.steps, self.actions, self.tokens, self.cost)
        self.query_one("#totals", Static).update(line + (f" · [yellow]{note}[/]" if note else ""))

    # --- the end ------------------------------------------------------------------------------------
    def show_stopping(self) -> None:
        self._update_totals("stopping…")

    def show_result(self, result: RunResult) -> None:
        if self.result is not None:
            return
        self.result = result
        row = error_row(result)
        if row is not None:
            self.rows.append(row)
            table = self.query_one("#steps", DataTable)
            self._add(table, row)
            table.move_cursor(row=table.row_count - 1)
        self._update_totals()
        self.query_one("#final", Static).update(final_text(result))
        self.add_class("-finished")

    def show_failure(self, message: str) -> None:
        """The run could not start (no model, a bad config ...): say why."""
        self.show_result(RunResult(success=False, stop_reason=StopReason.ERROR, message=message))
