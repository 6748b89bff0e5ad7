"""``kite tui``: the Textual app. The agent runs in a worker on the app's event loop (it is async and never
blocks); confirmations are a modal the worker awaits; Esc cancels the worker, which closes the browser and
saves the record before the final view appears."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.markup import escape
from textual.app import App
from textual.widgets import DataTable, Static
from textual.worker import Worker, WorkerState

from agent.config import KiteConfig
from agent.events import RunEvent
from agent.record import RunResult
from agent.tui.confirm import ConfirmModal
from agent.tui.history import TaskEntry, TaskHistory
from agent.tui.screens import RunScreen, TaskScreen
from safety.confirm import ConfirmAnswer, ConfirmRequest

AgentFactory = Callable[[KiteConfig, Any, Callable[[RunEvent], None]], Any]


class TuiConfirmer:
    """Confirmer protocol for the TUI: confirm opens the modal and waits; notify shows a toast."""

    def __init__(self, app: KiteApp) -> None:
        self.app = app

    async def confirm(self, request: ConfirmRequest) -> ConfirmAnswer:
        future: asyncio.Future[ConfirmAnswer] = asyncio.get_running_loop().create_future()
        self.app.push_screen(ConfirmModal(request), callback=lambda answer: future.set_result(answer))
        return await future

    async def notify(self, request: ConfirmRequest) -> None:
        reasons = "; ".join(request.decision.reasons)
        self.app.notify(f"{request.action.get('action')}: {reasons}", title="Kite", severity="warning")


def default_agent_factory(config: KiteConfig, confirmer: Any, on_event: Callable[[RunEvent], None]) -> Any:
    from agent.loop import Agent

    return Agent(config, confirmer=confirmer, on_event=on_event)


class KiteApp(App[None]):
    CSS_PATH = "kite.tcss"
    TITLE = "Kite"
    SUB_TITLE = "autonomous browser agent"

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
        self.defaults = start or TaskEntry(
            task="", model=config.llm.model or "local", headed=not config.browser.headless
        )
        self.agent: Any = None
        self.result: RunResult | None = None
        self.worker: Worker[RunResult] | None = None
        self.rows = 0
        self.tokens = 0
        self.cost: float | None = None
        self.t_step = time.monotonic()

    def on_mount(self) -> None:
        self.action_new_task()

    # --- the form -----------------------------------------------------------------------------------
    def action_new_task(self) -> None:
        if self.worker is not None and self.worker.is_running:
            return
        self.push_screen(TaskScreen(self.defaults, self.history.entries), callback=self.start_run)

    def start_run(self, entry: TaskEntry | None) -> None:
        if entry is None:
            return
        self.history.add(entry)
        self.defaults = entry
        self.rows, self.tokens, self.cost, self.result = 0, 0, None, None
        self.push_screen(RunScreen())
        self.worker = self.run_worker(self._run(entry), exclusive=True, group="agent", exit_on_error=False)

    async def _run(self, entry: TaskEntry) -> RunResult:
        from agent.commands._agent_opts import resolve_model

        llm = self.config.llm.model_copy(
            update={
                "model": entry.model or self.config.llm.model,
                "mode": "hybrid" if entry.vision else "dom",
            }
        )
        browser = self.config.browser.model_copy(update={"headless": not entry.headed})
        config = await resolve_model(self.config.model_copy(update={"llm": llm, "browser": browser}))
        self.agent = self.agent_factory(config, TuiConfirmer(self), self.on_agent_event)
        return await self.agent.run(entry.task, start_url=entry.start_url or None)

    # --- live view ----------------------------------------------------------------------------------
    def on_agent_event(self, event: RunEvent) -> None:
        screen = self.screen if isinstance(self.screen, RunScreen) else None
        if screen is None:
            screen = next((s for s in self.screen_stack if isinstance(s, RunScreen)), None)
        if screen is None:
            return
        d = event.data
        if event.kind == "observe":
            self.t_step = time.monotonic()
            shot = f"\n[dim]screenshot {escape(d['screenshot'])}[/]" if d.get("screenshot") else ""
            screen.query_one("#page", Static).update(
                f"[b]{escape(d.get('title') or '')}[/b]  [dim]{escape(d.get('url') or '')}[/]\n"
                f"{escape((d.get('text') or '')[:160])}{shot}"
            )
        elif event.kind == "model":
            u = d["usage"]
            self.tokens += u["prompt_tokens"] + u["completion_tokens"]
            if u.get("cost_usd") is not None:
                self.cost = (self.cost or 0.0) + u["cost_usd"]
            self._step_tokens = u["prompt_tokens"] + u["completion_tokens"]
            self._step_cost = u.get("cost_usd")
        elif event.kind in ("result", "error"):
            ok = d.get("ok", False)
            action = d.get("action") or "(reply not understood)"
            message = d.get("message") or d.get("error", {}).get("message", "")
            cost = getattr(self, "_step_cost", None)
            self._add_row(
                event.step,
                action,
                d.get("level", "-"),
                ("✓ " if ok else "✗ ") + message,
                getattr(self, "_step_tokens", 0),
                "-" if cost is None else f"{cost:.4f}",
            )
        self._totals(screen)

    def _add_row(self, step: int, action: str, level: str, result: str, tokens: int, cost: str) -> None:
        table = self.query_one_run("#steps", DataTable)
        if table is None:
            return
        self.rows += 1
        table.add_row(
            str(step),
            action,
            level,
            result,
            str(tokens),
            cost,
            f"{time.monotonic() - self.t_step:.1f}",
            key=f"r{self.rows}",
        )
        table.move_cursor(row=table.row_count - 1)

    def query_one_run(self, selector: str, kind: type) -> Any:
        for screen in reversed(self.screen_stack):
            if isinstance(screen, RunScreen):
                return screen.query_one(selector, kind)
        return None

    def _totals(self, screen: RunScreen) -> None:
        cost = f" · ${self.cost:.4f}" if self.cost is not None else ""
        screen.query_one("#totals", Static).update(f"{self.rows} actions · {self.tokens} tokens{cost}")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker is not self.worker or event.state not in (
            WorkerState.SUCCESS,
            WorkerState.CANCELLED,
            WorkerState.ERROR,
        ):
            return
        if event.state == WorkerState.SUCCESS:
            self.result = event.worker.result
        elif self.agent is not None:
            self.result = getattr(self.agent, "result", None)
        final = self.query_one_run("#final", Static)
        if final is None:
            return
        if event.state == WorkerState.ERROR and self.result is None:
            err = event.worker.error
            message = getattr(err, "message", None) or str(err)
            self._add_row(0, "(run could not start)", "-", "✗ " + message, 0, "-")
            final.update(f"[red b]error[/]  {escape(message)}   [dim]n new task · q quit[/]")
            return
        r = self.result
        if r is None:
            final.update("[yellow b]stopped[/]   [dim]n new task · q quit[/]")
            return
        colour = "green" if r.success else "red"
        final.update(
            f"[{colour} b]{'success' if r.success else 'failed'}[/] ({escape(r.stop_reason)})  "
            f"{escape(r.answer or r.message)}\n[dim]record {escape(str(r.run_dir))} · n new task · q quit[/]"
        )

    def action_stop_run(self) -> None:
        if self.worker is not None and self.worker.is_running:
            self.worker.cancel()
            self.notify("stopping: closing the browser and saving the record…")
