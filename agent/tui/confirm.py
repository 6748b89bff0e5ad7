"""The confirmation modal: what the action is, its target as the page shows it, the URL and the reasons."""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from agent.memory import describe_action
from safety.confirm import ConfirmAnswer, ConfirmRequest


def _target_line(request: ConfirmRequest) -> str:
    el = request.element
    if el is None:
        return (
            "(no element: "
            + escape(str(request.action.get("selector") or request.action.get("url") or "-"))
            + ")"
        )
    role = el.role or el.tag
    extra = f" type={el.type}" if el.type else ""
    return f'[{el.index}] {escape(role)} "{escape(el.name)}"{escape(extra)}'


class ConfirmModal(ModalScreen[ConfirmAnswer]):
    """Approve (y), deny (n) or approve similar actions for this run (a)."""

    BINDINGS = [
        Binding("y", "answer('approve')", "Approve"),
        Binding("n", "answer('deny')", "Deny"),
        Binding("a", "answer('similar')", "Approve similar"),
        Binding("escape", "answer('deny')", "Deny", show=False),
    ]

    def __init__(self, request: ConfirmRequest) -> None:
        super().__init__()
        self.request = request

    def compose(self) -> ComposeResult:
        r = self.request
        action = describe_action(dict(r.action))
        reasons = "\n".join(f"• {escape(x)}" for x in r.decision.reasons) or "• (no reason given)"
        with Vertical(id="confirm-box"):
            yield Static("[b]Kite asks before this action[/b]", id="confirm-title")
            yield Static(f"[b]Action[/b]  {escape(action)}", id="confirm-action")
            yield Static(f"[b]Target[/b]  {_target_line(r)}", id="confirm-target")
            yield Static(f"[b]Page[/b]    {escape(r.url)}", id="confirm-url")
            yield Static(f"[b]Why[/b]\n{reasons}", id="confirm-reasons")
            with Horizontal(id="confirm-buttons"):
                yield Button("Approve (y)", id="approve", variant="success")
                yield Button("Deny (n)", id="deny", variant="error")
                yield Button("Approve similar (a)", id="similar", variant="primary")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_answer(event.button.id or "deny")

    def action_answer(self, choice: str) -> None:
        if choice == "approve":
            self.dismiss(ConfirmAnswer(approved=True, reason="approved in the TUI"))
        elif choice == "similar":
            self.dismiss(
                ConfirmAnswer(approved=True, similar=True, reason="approved similar actions in the TUI")
            )
        else:
            self.dismiss(ConfirmAnswer(approved=False, reason="denied in the TUI"))
