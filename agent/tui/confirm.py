"""The confirmation modal: what the action is, its target as the page shows it, the URL and the reasons."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static

if TYPE_CHECKING:
    from kite_browser.safety.confirm import ConfirmAnswer, ConfirmRequest

CHOICES = {"approve": "approved in the TUI", "similar": "approved similar actions in the TUI"}


def target_line(request: ConfirmRequest) -> str:
    """The target as the page shows it (``ConfirmRequest.target_text``), escaped for Textual markup."""
    return escape(request.target_text())


class ConfirmModal(ModalScreen["ConfirmAnswer"]):
    """Approve (y), deny (n or esc) or approve similar actions for the rest of this run (a)."""

    BINDINGS = [
        Binding("y", "answer('approve')", "Approve"),
        Binding("n", "answer('deny')", "Deny"),
        Binding("a", "answer('similar')", "Approve similar"),
        Binding("escape", "answer('deny')", "Deny", show=False),
        Binding("ctrl+c", "app.stop_run", "Stop run", show=False, priority=True),
    ]

    def __init__(self, request: ConfirmRequest) -> None:
        super().__init__()
        self.request = request

    def compose(self) -> ComposeResult:
        from kite_browser.agent.run.memory import describe_action

        r = self.request
        reasons = "\n".join(f"• {escape(x)}" for x in r.why()) or "• (no reason given)"
        with Vertical(id="confirm-box"):
            yield Static("[b]Kite asks before this action[/b]", id="confirm-title")
            yield Static(f"[b]Action[/b]  {escape(describe_action(r.call()))}", id="confirm-action")
            if r.target_text():  # an action that names no target (executeJS) shows none
                yield Static(f"[b]Target[/b]  {target_line(r)}", id="confirm-target")
            yield Static(f"[b]Page[/b]    {escape(r.url or '(no page)')}", id="confirm-url")
            yield Static(f"[b]Why[/b]\n{reasons}", id="confirm-reasons")
            with Horizontal(id="confirm-buttons"):
                yield Button("Approve (y)", id="approve", variant="success")
                yield Button("Deny (n)", id="deny", variant="error")
                yield Button("Similar (a)", id="similar", variant="primary")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#deny", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_answer(event.button.id or "deny")

    def action_answer(self, choice: str) -> None:
        self.dismiss(answer_for(choice))


def answer_for(choice: str) -> ConfirmAnswer:
    """approve / similar / anything else (deny) as the Gate's ConfirmAnswer."""
    from kite_browser.safety.confirm import ConfirmAnswer

    if choice in CHOICES:
        return ConfirmAnswer(approved=True, similar=choice == "similar", reason=CHOICES[choice])
    return ConfirmAnswer(approved=False, reason="denied in the TUI")
