"""What ``kite batch`` shows: a rich progress bar on stderr (done/total, successes, cost so far, ETA), one
line per finished task above it, and a summary table at the end."""

from __future__ import annotations

from rich.console import Console, JustifyMethod
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from kite_browser.agent.batch.jobs import Job
from kite_browser.agent.batch.results import TaskResult
from kite_browser.agent.commands._console import console_for


def _why(result: TaskResult) -> str:
    if result.success:
        return result.answer
    if result.error:
        return result.error
    if result.check is not None and result.check.failures:
        return "; ".join(result.check.failures)
    return result.message or result.answer


def _mark(result: TaskResult, ok: str, failed: str) -> str:
    """ok / failed, never plain when the result has a caveat (ok, but the model said it failed; declined
    actions): then the mark is yellow and says it."""
    caveat = result.caveat
    if not caveat:
        return ok if result.success else failed
    word = "ok" if result.success else "FAIL"
    return f"[yellow]{word} ({escape(caveat)})[/]"


def _cost(cost: float | None) -> str:
    return f"${cost:.4f}" if cost is not None else "-"


class BatchView:
    def __init__(self, total: int, already: list[TaskResult], console: Console | None = None) -> None:
        self.console = console or console_for(stderr=True)
        self.ok = sum(r.success for r in already)
        self.failed = len(already) - self.ok
        known = [r.cost_usd for r in already if r.cost_usd is not None]
        self.cost: float | None = sum(known) if known else None
        self.progress = Progress(
            SpinnerColumn(),
            TextColumn("[bold]batch"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("[green]✓ {task.fields[ok]}[/] [red]✗ {task.fields[failed]}[/]"),
            TextColumn("{task.fields[cost]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=self.console,
            transient=False,
        )
        self.task_id = self.progress.add_task("batch", total=total, completed=len(already))
        self._show()

    def _show(self, advance: int = 0) -> None:
        self.progress.update(
            self.task_id, advance=advance, ok=self.ok, failed=self.failed, cost=_cost(self.cost)
        )

    def __enter__(self) -> BatchView:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def finished(self, job: Job, result: TaskResult) -> None:
        self.ok += result.success
        self.failed += not result.success
        if result.cost_usd is not None:
            self.cost = (self.cost or 0.0) + result.cost_usd
        mark = _mark(result, "[green]✓[/]", "[red]✗[/]")
        why = escape(_why(result)[:160])
        self.progress.console.print(
            f"{mark} {escape(result.id)}  [dim]{result.steps} steps · {result.wall_s:.1f}s · "
            f"{result.stop_reason}[/]  {why}",
            soft_wrap=True,
        )
        self._show(advance=1)


def summary_table(jobs: list[Job], results: dict[str, TaskResult]) -> Table:
    """One row per task of the file (in file order), then the totals."""
    table = Table(title="kite batch", show_lines=False)
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("id", "left"),
        ("result", "left"),
        ("stop", "left"),
        ("steps", "right"),
        ("tokens", "right"),
        ("cost", "right"),
        ("wall s", "right"),
        ("answer / why", "left"),
    )
    for name, justify in columns:
        wide = name == "answer / why"
        table.add_column(
            name, justify=justify, no_wrap=True, overflow="ellipsis", max_width=70 if wide else None
        )
    for job in jobs:
        r = results.get(job.id)
        if r is None:
            table.add_row(escape(job.id), "[yellow]not run[/]", "", "", "", "", "", "")
            continue
        table.add_row(
            escape(r.id),
            _mark(r, "[green]ok[/]", "[red]FAIL[/]"),
            r.stop_reason,
            str(r.steps),
            str(r.tokens),
            _cost(r.cost_usd),
            f"{r.wall_s:.1f}",
            escape(_why(r)[:120]),
        )
    return table


def totals_line(jobs: list[Job], results: dict[str, TaskResult], wall_s: float) -> str:
    mine = [results[j.id] for j in jobs if j.id in results]
    ok = sum(r.success for r in mine)
    costs = [r.cost_usd for r in mine if r.cost_usd is not None]
    missing = len(jobs) - len(mine)
    return (
        f"{ok}/{len(jobs)} succeeded, {len(mine) - ok} failed"
        + (f", {missing} not run" if missing else "")
        + f" · {sum(r.steps for r in mine)} steps · {sum(r.tokens for r in mine)} tokens"
        + f" · cost {_cost(sum(costs) if costs else None)} · this run {wall_s:.1f}s"
    )
