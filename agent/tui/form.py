"""The task form: task, start URL, model, vision and headed switches, and the recent tasks to rerun."""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Footer, Header, Input, Label, OptionList, Static, Switch
from textual.widgets.option_list import Option

from kite_browser.agent.tui.history import TaskEntry


class RecentList(OptionList):
    """Recent tasks, newest first: enter or r reruns the highlighted one."""

    BINDINGS = [Binding("r", "rerun", "Rerun")]

    def action_rerun(self) -> None:
        self.action_select()


class TaskScreen(Screen[None]):
    """Say what to do; enter or ctrl+r runs it. Posts ``TaskScreen.Submitted``; the app starts the run."""

    BINDINGS = [
        Binding("ctrl+r", "run", "Run", priority=True),
        Binding("ctrl+t", "focus_recent", "Recent tasks"),
        Binding("ctrl+q", "app.quit_kite", "Quit"),
    ]

    class Submitted(Message):
        def __init__(self, entry: TaskEntry) -> None:
            super().__init__()
            self.entry = entry

    def __init__(self, defaults: TaskEntry, recent: list[TaskEntry]) -> None:
        super().__init__()
        self.defaults, self.recent = defaults, recent

    def compose(self) -> ComposeResult:
        d = self.defaults
        yield Header(show_clock=False)
        with Vertical(id="form"):
            yield Label("Task", classes="field-label")
            yield Input(d.task, placeholder="What should Kite do? e.g. find the cheapest blue mug", id="task")
            yield Label("Start URL (optional)", classes="field-label")
            yield Input(d.start_url, placeholder="https://...", id="start_url")
            yield Label("Model (a litellm string, or 'local')", classes="field-label")
            yield Input(d.model, placeholder="openai/gpt-4o-mini", id="model")
            with Horizontal(id="switches"):
                yield Label("Vision")
                yield Switch(d.vision, id="vision")
                yield Label("Headed")
                yield Switch(d.headed, id="headed")
                yield Button("Run", id="run", variant="primary")
            yield Static("", id="form-error")
        title = "Recent tasks (enter or r reruns)" if self.recent else "Recent tasks: none yet"
        yield Label(title, id="recent-title")
        yield RecentList(*(Option(self._label(e)) for e in self.recent), id="recent")
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

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_run()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "run":
            self.action_run()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if 0 <= event.option_index < len(self.recent):
            self.post_message(self.Submitted(self.recent[event.option_index]))

    def action_focus_recent(self) -> None:
        recent = self.query_one("#recent", RecentList)
        if self.recent:
            recent.focus()
            if recent.highlighted is None:
                recent.highlighted = 0

    def action_run(self) -> None:
        entry = self.entry()
        if not entry.task:
            self.query_one("#form-error", Static).update("[red]Say what Kite should do first.[/]")
            self.query_one("#task", Input).focus()
            return
        self.post_message(self.Submitted(entry))
