"""The two screens: the task form (with recent tasks) and the live run view."""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, DataTable, Footer, Header, Input, Label, OptionList, Static, Switch
from textual.widgets.option_list import Option

from agent.tui.history import TaskEntry


class TaskScreen(Screen[TaskEntry]):
    """Say what to do; enter (or ctrl+r) runs it; r reruns the highlighted recent task."""

    BINDINGS = [
        Binding("ctrl+r", "run", "Run", priority=True),
        Binding("r", "rerun", "Rerun selected"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, defaults: TaskEntry, recent: list[TaskEntry]) -> None:
        super().__init__()
        self.defaults, self.recent = defaults, recent

    def compose(self) -> ComposeResult:
        d = self.defaults
        yield Header(show_clock=False)
        with Vertical(id="form"):
            yield Input(
                d.task, placeholder="What should Kite do?  e.g. find the cheapest blue mug", id="task"
            )
            yield Input(d.start_url, placeholder="Start URL (optional)", id="start_url")
            yield Input(d.model, placeholder="Model (litellm string, or 'local')", id="model")
            with Horizontal(id="switches"):
                yield Label("Vision")
                yield Switch(d.vision, id="vision")
                yield Label("Headed")
                yield Switch(d.headed, id="headed")
                yield Button("Run (ctrl+r)", id="run", variant="primary")
            yield Static("", id="form-error")
        yield Label("Recent tasks (r to rerun)", id="recent-title")
        yield OptionList(*(Option(self._label(e)) for e in self.recent), id="recent")
        yield Footer()

    @staticmethod
    def _label(entry: TaskEntry) -> str:
        where = f"  [dim]{escape(entry.start_url)}[/]" if entry.start_url else ""
        return escape(entry.task[:70]) + where

    def entry(self) -> TaskEntry:
        return TaskEntry(
            task=self.query_one("#task", Input).value.strip(),
            start_url=self.query_one("#start_url", Input).value.strip(),
            model=self.query_one("#model", Input).value.strip(),
            vision=self.query_one("#vision", Switch).value,
            headed=self.query_one("#headed", Switch).value,
        )

    def on_mount(self) -> None:
        self.query_one("#task", Input).focus()

    def on_input_submitted(self) -> None:
        self.action_run()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "run":
            self.action_run()

    def action_run(self) -> None:
        entry = self.entry()
        if not entry.task:
            self.query_one("#form-error", Static).update("[red]Say what Kite should do first.[/]")
            self.query_one("#task", Input).focus()
            return
        self.dismiss(entry)

    def action_rerun(self) -> None:
        recent = self.query_one("#recent", OptionList)
        if recent.highlighted is not None and self.recent:
            self.dismiss(self.recent[recent.highlighted])


class RunScreen(Screen[None]):
    """One row per step; the current page; running totals; the final answer."""

    BINDINGS = [
        Binding("escape", "app.stop_run", "Stop"),
        Binding("n", "app.new_task", "New task"),
        Binding("q", "app.quit", "Quit"),
    ]

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        yield Static("starting…", id="page")
        yield DataTable(id="steps", cursor_type="row", zebra_stripes=True)
        yield Static("", id="totals")
        yield Static("", id="final")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#steps", DataTable)
        for label, width in (
            ("#", 3),
            ("action", 34),
            ("level", 7),
            ("result", 30),
            ("tok", 6),
            ("cost", 7),
            ("s", 5),
        ):
            table.add_column(label, width=width, key=label)
