"""Live progress of a run: one line per action on a terminal (rich), one line per step anywhere else.

On a terminal each step prints as it happens: ``step N URL``, then a line per action with its safety level,
its result and the tokens so far. Redirected to a file or a pipe (``kite run ... > out.log``) the same facts
are written as plain text, one line per step (``step 2 · URL · ✓ click [6] button "Add" (auto) → ok · 812
tok``), with nothing wrapped or coloured, so a log reads and greps line by line. Then the final result."""

from __future__ import annotations

import json

from rich.console import Console
from rich.markup import escape

from kite_browser.agent.base.events import (
    ActionFinished,
    ModelReplied,
    ModelWaiting,
    PageObserved,
    ReplyRejected,
    RunEvent,
    RunStarted,
)
from kite_browser.agent.base.result import RunResult, StopReason
from kite_browser.agent.commands._console import console_for, is_terminal

LEVEL_STYLE = {"auto": "dim", "notify": "yellow", "confirm": "bold magenta", "block": "bold red"}


def one_line(text: str) -> str:
    """``text`` with every run of whitespace (newlines included) as one space."""
    return " ".join(text.split())


def plural(n: int, word: str) -> str:
    """``1 step``, ``2 steps``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def replay_line(result: RunResult) -> str:
    """What a replayed run says of itself: the steps replayed with no model call and the calls it saved."""
    by = result.steps_by or {}
    line = f"replayed from a workflow: {by.get('replayed', 0)} of {plural(result.steps, 'step')} with no model call"
    if by.get("healed"):
        line += f", {by['healed']} healed"
    if by.get("agent"):
        line += f", {by['agent']} by the agent"
    line += f"; {plural(result.model_calls or 0, 'model call')}"
    if result.model_calls_saved is not None:
        line += f", {plural(result.model_calls_saved, 'model call')} saved"
    return line


class ProgressPrinter:
    def __init__(self, console: Console | None = None) -> None:
        self.console = console or console_for(stderr=True)
        self.plain = not is_terminal(self.console.file)
        """Not a terminal: one plain line per step (written when the step's actions are known)."""
        self.tokens = 0
        self.cost: float | None = None
        self._line: list[str] = []

    def __call__(self, event: RunEvent) -> None:
        if isinstance(event, ModelReplied):
            self.tokens += event.usage.tokens
            if event.usage.cost_usd is not None:
                self.cost = (self.cost or 0.0) + event.usage.cost_usd
        elif self.plain:
            self._plain(event)
        else:
            self._rich(event)

    def _usage(self) -> str:
        return f"{self.tokens} tok" + (f" ${self.cost:.4f}" if self.cost is not None else "")

    def _rich(self, event: RunEvent) -> None:
        c = self.console
        if isinstance(event, RunStarted):
            c.print(
                f"[bold]kite[/] {escape(event.task)}  "
                f"[dim]model {escape(event.model)} · record {escape(event.run_dir)}[/]"
            )
        elif isinstance(event, PageObserved):
            c.print(f"[cyan]step {event.step}[/] [dim]{escape(event.url)}[/]")
        elif isinstance(event, ActionFinished):
            mark = "[green]✓[/]" if event.went_well else "[red]✗[/]"
            style = LEVEL_STYLE.get(event.level, "")
            c.print(
                f"  {mark} {escape(event.action)} [{style}]{event.level}[/] → {escape(event.message)}"
                f"  [dim]{self._usage()}[/]"
            )
        elif isinstance(event, ReplyRejected):
            c.print(f"  [red]✗ {escape(event.message)}[/]")
        elif isinstance(event, ModelWaiting):
            c.print(f"  [dim]… {escape(event.message)}[/]")

    def _plain(self, event: RunEvent) -> None:
        if isinstance(event, RunStarted):
            self._write(f"kite {event.task} · model {event.model} · record {event.run_dir}")
        elif isinstance(event, PageObserved):
            self.flush()
            self._line = [f"step {event.step}", event.url]
        elif isinstance(event, ActionFinished):
            mark = "✓" if event.went_well else "✗"
            self._line.append(f"{mark} {event.action} ({event.level}) → {event.message}")
        elif isinstance(event, ReplyRejected):
            self._line.append(f"✗ reply not used: {event.message}")
        elif isinstance(event, ModelWaiting):  # said when it happens: a wait is news before the step's line
            self._write(f"step {event.step} · … {event.message}")

    def flush(self) -> None:
        """Write the step line being gathered (plain output), if any."""
        if self._line:
            self._write(" · ".join([*self._line, self._usage()]))
            self._line = []

    def _write(self, text: str) -> None:
        self.console.print(one_line(text), markup=False, highlight=False)

    def final(self, result: RunResult) -> None:
        self.flush()
        c = self.console
        colour = "green" if result.success else "red"
        c.print(
            f"[{colour} bold]{'success' if result.success else 'failed'}[/] ({result.stop_reason}) "
            f"in {plural(result.steps, 'step')}, {result.duration_s:.1f}s, "
            f"{result.tokens_in + result.tokens_out} tokens"
            + (f", ${result.cost_usd:.4f}" if result.cost_usd is not None else "")
        )
        if result.replayed:
            c.print(f"[cyan]{escape(replay_line(result))}[/]")
        if result.message and result.stop_reason != StopReason.DONE:
            c.print(f"[dim]{escape(result.message)}[/]")
        if result.verified is False:
            c.print(
                f"[yellow]unverified:[/] the page does not bear out its claim: {escape(result.verification)}"
            )
        elif result.claimed_success and not result.success:
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
