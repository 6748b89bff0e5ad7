"""Pure text helpers for the run view: rows, the page panel, totals and the final summary (Rich markup)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.markup import escape

ERROR_STOPS = {
    "model_error": "model call",
    "error": "run",
    "start_url_unreachable": "open start URL",
}
"""Stop reasons that end a run with an error of their own (no step row says it): the row's action text."""


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


def page_panel(data: dict[str, Any]) -> str:
    title = escape(data.get("title") or "(no title)")
    text = escape(" ".join((data.get("text") or "").split())[:140])
    shot = f"\n[dim]screenshot {escape(str(data['screenshot']))}[/]" if data.get("screenshot") else ""
    return f"[b]{title}[/b]  [dim]{escape(data.get('url') or '')}[/]\n{text}{shot}"


def totals_line(steps: int, actions: int, tokens: int, cost: float | None) -> str:
    money = f" · ${cost:.4f}" if cost is not None else ""
    return f"step {steps} · {actions} actions · {tokens} tokens{money}"


def final_text(result: dict[str, Any]) -> str:
    """The final view from a RunResult's JSON form."""
    reason = str(result.get("stop_reason") or "?")
    if result.get("success"):
        head = "[green b]success[/]"
    elif reason == "interrupted":
        head = "[yellow b]stopped[/]"
    else:
        head = "[red b]failed[/]"
    body = result.get("answer") or result.get("message") or ""
    lines = [f"{head} ({escape(reason)})  {escape(str(body))}"]
    if result.get("run_dir"):
        lines.append(f"[dim]record[/] {escape(str(result['run_dir']))}")
    return "\n".join(lines)


def error_row(result: dict[str, Any]) -> StepRow | None:
    """The row that shows a run-ending error (a model error, an unreachable start URL, a bug)."""
    reason = str(result.get("stop_reason") or "")
    if reason not in ERROR_STOPS:
        return None
    message = str(result.get("message") or reason)
    return StepRow(int(result.get("steps") or 0), ERROR_STOPS[reason], "-", False, message)
