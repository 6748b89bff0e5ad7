"""Live progress of a run on the terminal (rich): one line per action, then the final answer."""

from __future__ import annotations

import json

from rich.console import Console
from rich.markup import escape

from kite_browser.agent.events import (
    ActionFinished,
    ModelReplied,
    ModelWaiting,
    PageObserved,
    ReplyRejected,
    RunEvent,
    RunStarted,
)
from kite_browser.agent.result import RunResult, StopReason

LEVEL_STYLE = {"auto": "dim", "notify": "yellow", "confirm": "bold magenta", "block": "bold red"}


class ProgressPrinter:
    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True, highlight=False)
        self.tokens = 0
        self.cost: float | None = None

    def __call__(self, event: RunEvent) -> None:
        c = self.console
        if isinstance(event, RunStarted):
            c.print(
                f"[bold]kite[/] {escape(event.task)}  "
                f"[dim]model {escape(event.model)} · record {escape(event.run_dir)}[/]"
            )
        elif isinstance(event, PageObserved):
            c.print(f"[cyan]step {event.step}[/] [dim]{escape(event.url)}[/]")
        elif isinstance(event, ModelReplied):
            self.tokens += event.usage.tokens
            if event.usage.cost_usd is not None:
                self.cost = (self.cost or 0.0) + event.usage.cost_usd
        elif isinstance(event, ActionFinished):
            mark = "[green]✓[/]" if event.ok else "[red]✗[/]"
            style = LEVEL_STYLE.get(event.level, "")
            cost = f" ${self.cost:.4f}" if self.cost is not None else ""
            c.print(
                f"  {mark} {escape(event.action)} [{style}]{event.level}[/] → {escape(event.message)}"
                f"  [dim]{self.tokens} tok{cost}[/]"
            )
        elif isinstance(event, ReplyRejected):
            c.print(f"  [red]✗ {escape(event.message)}[/]")
        elif isinstance(event, ModelWaiting):
            c.print(f"  [dim]… {escape(event.message)}[/]")

    def final(self, result: RunResult) -> None:
        c = self.console
        colour = "green" if result.success else "red"
        c.print(
            f"[{colour} bold]{'success' if result.success else 'failed'}[/] ({result.stop_reason}) "
            f"in {result.steps} steps, {result.duration_s:.1f}s, {result.tokens_in + result.tokens_out} tokens"
            + (f", ${result.cost_usd:.4f}" if result.cost_usd is not None else "")
        )
        if result.message and result.stop_reason != StopReason.DONE:
            c.print(f"[dim]{escape(result.message)}[/]")
        if result.claimed_success and not result.success:
            c.print("[yellow]the model reported success, but not everything it needed was done:[/]")
        for d in result.declined:
            c.print(
                f"  [yellow]{d.outcome}[/] at step {d.step}: {escape(d.action)} [dim]{escape(d.reason)}[/]"
            )
        if result.answer:
            c.print(f"[bold]answer:[/] {escape(result.answer)}")
        if result.data is not None:
            c.print(f"[bold]data:[/] {escape(json.dumps(result.data, ensure_ascii=False))}")
        c.print(f"[dim]record: {escape(str(result.run_dir))}[/]")
