"""``kite tui``: the Textual app. The agent runs in a worker on the app's event loop (it is async and never
blocks); confirmations are a modal the worker awaits; Esc cancels the worker, which closes the browser and
saves the record before the final view appears.

Only Textual and the small TUI modules are imported at start-up: the agent (litellm, Playwright) is imported
when the first run starts, so ``kite tui`` opens fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App
from textual.binding import Binding
from textual.worker import Worker, WorkerState

from kite_browser.agent.base.errors import KiteError
from kite_browser.agent.llm.model_names import model_or_local
from kite_browser.agent.tui.form import TaskScreen
from kite_browser.agent.tui.history import TaskEntry, TaskHistory
from kite_browser.agent.tui.run_view import RunScreen
from kite_browser.agent.tui.runner import (
    AgentFactory,
    RunsTasks,
    TuiConfirmer,
    default_agent_factory,
    run_config,
)

if TYPE_CHECKING:
    from kite_browser.agent.base.events import RunEvent
    from kite_browser.agent.config import KiteConfig
    from kite_browser.agent.run.record import RunResult


class KiteApp(App[None]):
    CSS_PATH = "kite.tcss"
    TITLE = "Kite"
    SUB_TITLE = "autonomous browser agent"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [Binding("ctrl+q", "quit_kite", "Quit", show=False)]
    """ctrl+q quits everywhere, like q on the run view: a running agent is stopped first."""

    def __init__(
        self,
        config: KiteConfig,
        *,
        agent_factory: AgentFactory | None = None,
        history_path: Path | None = None,
        start: TaskEntry | None = None,
    ) -> None:
        super().__init__()
        self.config = config
        self.agent_factory = agent_factory or default_agent_factory
        self.history = TaskHistory(history_path or config.data_dir() / "tui-history.json")
        self.defaults = start or TaskEntry(task="", model=model_or_local(config.llm.model))
        self.agent: RunsTasks | None = None
        self.confirmer: TuiConfirmer | None = None
        self.run_screen: RunScreen | None = None
        self.worker: Worker[RunResult] | None = None
        self.result: RunResult | None = None
        self._quit_when_stopped = False

    @property
    def running(self) -> bool:
        return self.worker is not None and not self.worker.is_finished

    def on_mount(self) -> None:
        self.push_screen(TaskScreen(self.defaults, self.history.entries))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "stop_run":
            return self.running
        if action == "new_task":
            return not self.running
        return True

    # --- form → run ---------------------------------------------------------------------------------
    def action_new_task(self) -> None:
        if self.running:
            return
        self.switch_screen(TaskScreen(self.defaults, self.history.entries))

    async def on_task_screen_submitted(self, message: TaskScreen.Submitted) -> None:
        if self.running:
            return
        entry = message.entry
        try:
            self.history.add(entry)
        except OSError as exc:
            self.notify(f"could not save the recent tasks: {exc}", severity="warning")
        self.defaults, self.result, self.agent = entry, None, None
        self.run_screen = RunScreen(entry.task)
        await self.switch_screen(self.run_screen)
        self.worker = self.run_worker(self._run(entry), group="agent", exit_on_error=False)
        self.call_after_refresh(self.refresh_bindings)

    async def _run(self, entry: TaskEntry) -> RunResult:
        config = await run_config(self.config, entry)
        self.confirmer = TuiConfirmer(self, approve=config.safety.approve)
        self.confirmer.headed = not config.browser.headless and config.browser.attach is None
        self.agent = self.agent_factory(config, self.confirmer, self._on_event)
        return await self.agent.run(entry.task, start_url=entry.start_url or None)

    def _on_event(self, event: RunEvent) -> None:
        if self.run_screen is not None:
            self.run_screen.on_agent_event(event)

    # --- the end of a run ---------------------------------------------------------------------------
    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker is not self.worker:
            return
        self.refresh_bindings()
        if event.state not in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            return  # (a RUNNING message may arrive after the worker has already finished)
        if event.state == WorkerState.SUCCESS:
            self.result = event.worker.result
        elif self.agent is not None:
            self.result = self.agent.result
        screen = self.run_screen
        if screen is not None:
            if self.result is not None:
                screen.show_result(self.result)
            elif event.state == WorkerState.ERROR:
                err = event.worker.error
                screen.show_failure(
                    err.message if isinstance(err, KiteError) else f"{type(err).__name__}: {err}"
                )
            else:
                screen.show_failure("stopped before the run started")
        if self._quit_when_stopped:
            self.exit()

    def action_stop_run(self) -> None:
        if self.worker is not None and self.running:
            self.worker.cancel()
            if self.run_screen is not None:
                self.run_screen.show_stopping()

    def action_quit_kite(self) -> None:
        """q: quit; a running agent is stopped first (browser closed, record saved)."""
        if self.running:
            self._quit_when_stopped = True
            self.action_stop_run()
        else:
            self.exit()
