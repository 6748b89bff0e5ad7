"""Live progress of a run on the terminal (rich): one line per action, then the final answer."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from agent.events import RunEvent
from agent.record import RunResult

LEVEL_STYLE = {"auto": "dim", "notify": "yellow", "confirm": "bold magenta", "block": "bold red"}


class ProgressPrinter:
    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True, highlight=False)
        self.tokens = 0
        self.cost: float | None = None

    def __call__(self, event: RunEvent) -> None:
        d, c = event.data, self.console
        if event.kind == "start":
            c.print(
                f"[bold]kite[/] {escape(d['task'])}  [dim]model {escape(d['model'])} · record {escape(d['run_dir'])}[/]"
            )
        elif event.kind == "observe":
            c.print(f"[cyan]step {event.step}[/] [dim]{escape(d.get('url') or '')}[/]")
        elif event.kind == "model":
            u = d["usage"]
            self.tokens += u["prompt_tokens"] + u["completion_tokens"]
            if u.get("cost_usd") is not None:
                self.cost = (self.cost or 0.0) + u["cost_usd"]
        elif event.kind == "result":
            mark = "[green]✓[/]" if d["ok"] else "[red]✗[/]"
            style = LEVEL_STYLE.get(d.get("level", "auto"), "")
            cost = f" ${self.cost:.4f}" if self.cost is not None else ""
            c.print(
                f"  {mark} {escape(d['action'])} [{style}]{d.get('level')}[/] → {escape(d['message'])}"
                f"  [dim]{self.tokens} tok{cost}[/]"
            )
        elif event.kind == "error":
            c.print(f"  [red]✗ {escape(str(d.get('error', {}).get('message', d)))}[/]")

    def final(self, result: RunResult) -> None:
        c = self.console
        colour = "green" if result.success else "red"
        c.print(
            f"[{colour} bold]{'success' if result.success else 'failed'}[/] ({result.stop_reason}) "
            f"in {result.steps} steps, {result.duration_s:.1f}s, {result.tokens_in + result.tokens_out} tokens"
            + (f", ${result.cost_usd:.4f}" if result.cost_usd is not None else "")
        )
        if result.message and result.stop_reason != "done":
            c.print(f"[dim]{escape(result.message)}[/]")
        if result.answer:
            c.print(f"[bold]answer:[/] {escape(result.answer)}")
        c.print(f"[dim]record: {escape(str(result.run_dir))}[/]")
