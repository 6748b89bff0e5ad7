"""The hand-over modal: a person is asked to do something in the browser (a CAPTCHA, a one-time code, a login
only they may type) and to say when they are done. The browser is theirs while it is open; what they type
there is redacted from everything the run sends or keeps (``BrowserEnv._hand_over``)."""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static

from kite_browser.safety.handover import HandBack, HandOverRequest


class HandOverModal(ModalScreen[HandBack]):
    """Done (d) when the person did what was asked; Can't (c or esc) when they could not."""

    BINDINGS = [
        Binding("d", "answer('done')", "Done"),
        Binding("c", "answer('cannot')", "Can't"),
        Binding("escape", "answer('cannot')", "Can't", show=False),
        Binding("ctrl+c", "app.stop_run", "Stop run", show=False, priority=True),
    ]

    def __init__(self, request: HandOverRequest, headed: bool) -> None:
        super().__init__()
        self.request, self.headed = request, headed

    def compose(self) -> ComposeResult:
        where = (
            "The browser window is yours: do it there, then press Done."
            if self.headed
            else "The browser has no window (headless): run with Headed on to do it yourself, or press Can't."
        )
        with Vertical(id="handover-box"):
            yield Static("[b]Kite hands the browser to you[/b]", id="handover-title")
            yield Static(escape(self.request.question), id="handover-question")
            yield Static(f"[b]Page[/b]  {escape(self.request.url or '(no page)')}", id="handover-url")
            yield Static(where, id="handover-where")
            with Horizontal(id="handover-buttons"):
                yield Button("Done (d)", id="done", variant="success")
                yield Button("Can't (c)", id="cannot", variant="error")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#done", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_answer(event.button.id or "cannot")

    def action_answer(self, choice: str) -> None:
        self.dismiss(
            HandBack(done=choice == "done", reason="" if choice == "done" else "the person could not")
        )
