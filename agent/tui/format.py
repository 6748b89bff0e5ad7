"""Pure text helpers for the run view: rows, the page panel, totals and the final summary (Rich markup)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.markup import escape

from kite_browser.agent.base.events import PageObserved
from kite_browser.agent.base.result import ERROR_STOPS, RunResult, StopReason

ERROR_ROW_ACTION = {
    StopReason.MODEL_ERROR: "model call",
    StopReason.START_URL_UNREACHABLE: "open start URL",
}
"""The error row's action text for a run that ended with an error of its own (no step row says it)."""


@dataclass
class StepRow:
    """One row of the steps table (one action, or one reply that could not be used)."""

    step: int
    action: str
    level: str
    ok: bool
    result: str
    tokens: int | None = None
    cost: float | None = None
    seconds: float | None = None

    def cells(self) -> tuple[str, ...]:
        mark = "[green]✓[/]" if self.ok else "[red]✗[/]"
        level = {"confirm": "[yellow]confirm[/]", "block": "[red]block[/]"}.get(self.level, self.level)
        return (
            str(self.step) if self.step else "-",
            escape(self.action),
            level,
            f"{mark} {escape(self.result)}",
            "" if self.tokens is None else str(self.tokens),
            "" if self.cost is None else f"{self.cost:.4f}",
            "" if self.seconds is None else f"{self.seconds:.1f}",
        )

    def detail(self) -> str:
        status = "[green]ok[/]" if self.ok else "[red]failed[/]"
        return f"[b]step {self.step or '-'}[/b] {escape(self.action)}\n{status}: {escape(self.result)}"


def page_panel(page: PageObserved) -> str:
    title = escape(page.title or "(no title)")
    text = escape(" ".join(page.text.split())[:140])
    shot = f"\n[dim]screenshot {escape(page.screenshot)}[/]" if page.screenshot else ""
    return f"[b]{title}[/b]  [dim]{escape(page.url)}[/]\n{text}{shot}"


def totals_line(steps: int, actions: int, tokens: int, cost: float | None) -> str:
    money = f" · ${cost:.4f}" if cost is not None else ""
    return f"step {steps} · {actions} actions · {tokens} tokens{money}"


def final_text(result: RunResult) -> str:
    """The final view of a run."""
    reason = result.stop_reason
    if result.success:
        head = "[green b]success[/]"
    elif reason == StopReason.INTERRUPTED:
        head = "[yellow b]stopped[/]"
    else:
        head = "[red b]failed[/]"
    body = result.answer or result.message
    lines = [f"{head} ({escape(reason)})  {escape(body)}"]
    if result.verified is False:
        lines.append(
            f"[yellow]unverified:[/] the page does not bear out its claim: {escape(result.verification)}"
        )
    elif result.claimed_success and not result.success:
        lines.append("[yellow]the model reported success, but not everything it needed was done:[/]")
    lines += [f"[yellow]{d.outcome}[/] at step {d.step}: {escape(d.action)}" for d in result.declined]
    if result.run_dir:
        lines.append(f"[dim]record[/] {escape(result.run_dir)}")
    return "\n".join(lines)


def error_row(result: RunResult) -> StepRow | None:
    """The row that shows a run-ending error (a model error, an unreachable start URL, a bug)."""
    reason = result.stop_reason
    if reason not in ERROR_STOPS:
        return None
    return StepRow(result.steps, ERROR_ROW_ACTION.get(reason, "run"), "-", False, result.message or reason)
