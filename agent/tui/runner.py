"""What a TUI run needs besides the screens: the Confirmer that opens the modal, and the run's config."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Protocol

from kite_browser.agent.tui.confirm import ConfirmModal

if TYPE_CHECKING:
    from textual.app import App

    from kite_browser.agent.base.events import RunEvent
    from kite_browser.agent.config import KiteConfig
    from kite_browser.agent.run.record import RunResult
    from kite_browser.agent.tui.history import TaskEntry
    from kite_browser.safety.confirm import ConfirmAnswer, Confirmer, ConfirmRequest
    from kite_browser.safety.handover import HandBack, HandOverRequest


class RunsTasks(Protocol):
    """What the TUI needs of an agent: ``run`` a task, and the ``result`` of the last run (None until then)."""

    result: RunResult | None

    async def run(self, task: str, start_url: str | None = None) -> RunResult: ...


AgentFactory = Callable[["KiteConfig", "Confirmer", Callable[["RunEvent"], None]], RunsTasks]
"""(config, confirmer, on_event) -> the agent that runs the form's task."""


class TuiConfirmer:
    """The Confirmer protocol for the TUI: confirm opens the modal and waits for it (the UI keeps running);
    notify shows a toast and returns at once. ``asked`` lists every request the modal was opened for."""

    def __init__(self, app: App[None], approve: Iterable[str] = ()) -> None:
        self.app = app
        self.approve = frozenset(approve)
        """Levels or action names approved without opening the modal (``kite tui --approve``)."""
        self.asked: list[ConfirmRequest] = []
        self.handed: list[HandOverRequest] = []
        """Every hand-over the modal was opened for."""
        self.headed = False
        """Whether this run's browser has a window the person can use (set by the app for each run)."""

    async def confirm(self, request: ConfirmRequest) -> ConfirmAnswer:
        from kite_browser.safety.confirm import ConfirmAnswer

        if request.decision.level.value in self.approve or str(request.action.get("action")) in self.approve:
            self.app.notify(request.describe(), title="Kite (approved by --approve)")
            return ConfirmAnswer(approved=True, reason="approved by --approve")
        self.asked.append(request)
        future: asyncio.Future[ConfirmAnswer] = asyncio.get_running_loop().create_future()

        def answered(answer: ConfirmAnswer | None) -> None:
            if not future.done():
                future.set_result(answer or ConfirmAnswer(approved=False, reason="no answer"))

        modal = ConfirmModal(request)
        self.app.push_screen(modal, callback=answered)
        try:
            return await future
        except asyncio.CancelledError:  # the run was stopped while the modal was open
            if modal.is_attached and self.app.screen is modal:
                self.app.pop_screen()
            raise

    async def notify(self, request: ConfirmRequest) -> None:
        self.app.notify(request.describe(), title="Kite (notify)", severity="warning")

    async def hand_over(self, request: HandOverRequest) -> HandBack:
        """The browser handed to the person at the TUI: the modal says what to do, and waits for Done."""
        from kite_browser.agent.tui.handover import HandOverModal
        from kite_browser.safety.handover import HandBack

        self.handed.append(request)
        future: asyncio.Future[HandBack] = asyncio.get_running_loop().create_future()

        def answered(back: HandBack | None) -> None:
            if not future.done():
                future.set_result(back or HandBack(done=False, reason="no answer"))

        modal = HandOverModal(request, self.headed)
        self.app.push_screen(modal, callback=answered)
        try:
            return await future
        except asyncio.CancelledError:
            if modal.is_attached and self.app.screen is modal:
                self.app.pop_screen()
            raise


def default_agent_factory(
    config: KiteConfig, confirmer: Confirmer, on_event: Callable[[RunEvent], None]
) -> RunsTasks:
    from kite_browser.agent.run.loop import Agent

    return Agent(config, confirmer=confirmer, on_event=on_event)


async def run_config(base: KiteConfig, entry: TaskEntry) -> KiteConfig:
    """The base config with the form's model, vision and headed choices; ``local`` resolved."""
    from kite_browser.agent.llm.model_names import model_or_local
    from kite_browser.agent.llm.resolve import prepare_config

    model = model_or_local(entry.model or base.llm.model)
    llm = base.llm.model_copy(
        update={"model": model, "vision": entry.vision, "mode": "hybrid" if entry.vision else "dom"}
    )
    browser = base.browser.model_copy(update={"headless": not entry.headed})
    return await prepare_config(base.model_copy(update={"llm": llm, "browser": browser}))
