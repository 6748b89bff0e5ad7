"""``kite show RUN_DIR [--step N]``: print a recorded run step by step — the prompt sent, the model's reply,
the actions and their results — from its run record (run.json, steps.jsonl and the prompts stored in sent/).

RUN_DIR is a run folder, a run's name under ``run.runs_dir``, or ``last`` (the newest run there, also
among the ``eval-SUITE-TIME/`` folders ``kite eval`` writes its runs into). Without
``--step`` every step is printed (``--brief`` cuts each prompt to its first lines); with ``--step N`` that
step in full, with the system message and the tools it was sent. A missing folder or step is a one-line
usage error (exit 2).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.rule import Rule

from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.base.jsontypes import JsonValue

BRIEF_LINES = 12


def _dig(value: JsonValue, *keys: str) -> JsonValue:
    """``value[k1][k2]...`` of a record read back, None where a key is missing or a value is not an object."""
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "show",
        help="print a recorded run step by step (prompt, reply, actions, results)",
        description="Print a run record step by step: the prompt sent, the model's reply, the actions and "
        "their results.",
    )
    p.add_argument("run_dir", metavar="RUN_DIR", help="a run folder, a run's name under runs/, or 'last'")
    p.add_argument(
        "--step", type=int, metavar="N", help="only step N, in full (system message and tools too)"
    )
    p.add_argument("--brief", action="store_true", help=f"cut each prompt to its first {BRIEF_LINES} lines")
    p.add_argument("--runs-dir", help="where run records are (default: run.runs_dir, runs/)")
    p.set_defaults(func=show)


def find_run(name: str, runs_dir: str) -> Path:
    """The run folder ``name`` designates (a path, a name under ``runs_dir``, or ``last``)."""
    base = Path(runs_dir).expanduser()
    if name == "last":  # a run folder's name starts with its start time; kite eval's sit one level down
        found = [*base.glob("*/steps.jsonl"), *base.glob("*/*/steps.jsonl")] if base.is_dir() else []
        runs = sorted((p.parent for p in found), key=lambda run: (run.name, str(run)))
        if not runs:
            raise UsageError(f"no run records in {base}")
        return runs[-1]
    path = Path(name).expanduser()
    if not path.exists() and (base / name).exists():
        path = base / name
    if not path.is_dir():
        also = "" if path.is_absolute() else f" (nor {base / name})"
        raise UsageError(f"no run record at {name}: no such folder{also}")
    if not (path / "steps.jsonl").is_file():
        raise UsageError(f"{path} is not a run record: it has no steps.jsonl")
    return path


def read_steps(run: Path) -> list[dict[str, Any]]:
    steps = []
    # errors="replace": a line with bytes that are not UTF-8 is then no JSON either, and skipped like a torn one
    for line in (run / "steps.jsonl").read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            steps.append(json.loads(line))
        except json.JSONDecodeError:  # a torn last line (the run was killed while writing it)
            continue
    return steps


def show(args: argparse.Namespace) -> int:
    from kite_browser.agent.config import load_config

    runs_dir = args.runs_dir or load_config(getattr(args, "config", None)).run.runs_dir
    run = find_run(args.run_dir, runs_dir)
    steps = read_steps(run)
    if args.step is not None:
        chosen = [s for s in steps if s.get("step") == args.step]
        if not chosen:
            have = sorted({s.get("step", 0) for s in steps})
            span = f"steps {have[0]}–{have[-1]}" if have else "no steps"
            raise UsageError(f"step {args.step} is not in {run} (it has {span})")
        steps = chosen
    console = Console(highlight=False, soft_wrap=True)
    RunPrinter(console, run, brief=args.brief, full=args.step is not None).print(steps)
    return 0


class RunPrinter:
    """Prints a run record: its header, then each step."""

    def __init__(self, console: Console, run: Path, *, brief: bool = False, full: bool = False) -> None:
        self.c, self.run, self.brief, self.full = console, run, brief, full

    def print(self, steps: list[dict[str, Any]]) -> None:
        self.header()
        for s in steps:
            self.step(s)

    def header(self) -> None:
        path = self.run / "run.json"
        try:
            info = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        except ValueError as exc:  # not UTF-8, or not JSON
            raise UsageError(f"{path} is damaged: it is not a JSON run summary ({exc})") from exc
        c = self.c
        c.print(f"[bold]run[/] {escape(str(self.run))}")
        if info.get("task"):
            c.print(f"[bold]task[/] {escape(str(info['task']))}")
        mode = "function calling" if info.get("function_calling") else "JSON replies"
        c.print(
            f"[bold]model[/] {escape(str(info.get('model', '?')))} ({mode}), started {info.get('started_at', '?')}"
        )
        result = info.get("result")
        if not result:
            c.print("[yellow]the run has no result (still running, or killed)[/]")
            return
        ok = "[green]success[/]" if result.get("success") else "[red]failed[/]"
        c.print(
            f"[bold]result[/] {ok} ({escape(result.get('stop_reason', '?'))}) in {result.get('steps')} steps, "
            f"{result.get('duration_s', 0):.1f}s, {result.get('tokens_in', 0)}+{result.get('tokens_out', 0)} tokens"
        )
        for key in ("message", "answer"):
            if result.get(key):
                c.print(f"[bold]{key}[/] {escape(str(result[key]))}")
        if result.get("data") is not None:
            c.print(f"[bold]data[/] {escape(json.dumps(result['data'], ensure_ascii=False))}")

    def block(self, text: str, style: str = "") -> None:
        lines = text.splitlines() or [""]
        cut = self.brief and len(lines) > BRIEF_LINES
        for line in lines[:BRIEF_LINES] if cut else lines:
            self.c.print("  [dim]│[/] " + (f"[{style}]{escape(line)}[/]" if style else escape(line)))
        if cut:
            self.c.print(f"  [dim]│ … {len(lines) - BRIEF_LINES} more lines (kite show RUN --step N)[/]")

    def step(self, s: dict[str, Any]) -> None:
        n = s.get("step", 0)
        title = f"Step {n}" + (f" · {s['url']}" if s.get("url") else "") + (" · start URL" if n == 0 else "")
        self.c.print(Rule(escape(title), align="left"))
        if s.get("recovered"):
            self.c.print(f"[yellow]recovered:[/] {escape(s['recovered'])}")
        if s.get("request"):
            self.request(s)
        if s.get("reply"):
            self.reply(s["reply"], s.get("usage") or {})
        if s.get("error"):
            self.c.print(f"[red]model call failed:[/] {escape(json.dumps(s['error'], ensure_ascii=False))}")
        if s.get("parse_error"):
            self.c.print(f"[red]reply not usable:[/] {escape(str(s['parse_error'].get('message', '')))}")
        for call in s.get("tools") or []:
            self.c.print(f"[bold]tool[/] {escape(json.dumps(call, ensure_ascii=False)[:2000])}")
        if s.get("actions"):
            self.c.print("[bold]actions[/]")
            for item in s["actions"]:
                self.action(item)

    def request(self, s: dict[str, Any]) -> None:
        from kite_browser.agent.run.record import load_request

        request = s["request"]
        try:
            messages, tools = load_request(self.run, request)
        except (OSError, ValueError) as exc:
            self.c.print(f"[red]the prompt's stored parts cannot be read: {escape(str(exc))}[/]")
            messages, tools = request.get("messages") or [], None
        est = f"~{s['prompt_tokens_est']} tokens (estimated)" if s.get("prompt_tokens_est") else ""
        refs = [m["content_file"] for m in request.get("messages") or [] if "content_file" in m]
        names = [str(_dig(t, "function", "name") or "?") for t in tools or []]
        where = " · ".join(
            x
            for x in (
                est,
                f"system: {refs[0]}" if refs else "",
                f"{len(names)} tools: {request.get('tools_file')}" if names else "",
            )
            if x
        )
        self.c.print(f"[bold]prompt[/] [dim]{escape(where)}[/]")
        for m in messages:
            role, content = str(m.get("role", "?")), m.get("content")
            if role == "system" and not self.full:
                continue
            self.c.print(f"  [cyan]{escape(role)}[/]")
            if isinstance(content, list):  # text and an image (by its screenshot file)
                for part in content:
                    if _dig(part, "type") == "text":
                        self.block(str(_dig(part, "text") or ""))
                    else:
                        self.block(f"[image: {_dig(part, 'image_url', 'url') or ''}]", "dim")
            else:
                self.block(str(content or ""))
        if self.full and names:
            self.c.print(f"  [cyan]tools[/] {escape(', '.join(names))}")

    def reply(self, reply: dict[str, Any], usage: dict[str, Any]) -> None:
        tokens = f"{usage.get('prompt_tokens', 0)} in / {usage.get('completion_tokens', 0)} out tokens"
        latency = f", {usage.get('latency_ms', 0) / 1000:.1f}s" if usage.get("latency_ms") else ""
        retry = f", {reply['attempts']} attempts" if reply.get("attempts", 1) > 1 else ""
        self.c.print(f"[bold]reply[/] [dim]{tokens}{latency}{retry}[/]")
        if reply.get("content"):
            self.block(reply["content"], "green")
        for call in reply.get("tool_calls") or []:
            self.block(f"{call.get('name')}({call.get('arguments', '')})", "green")

    def action(self, item: dict[str, Any]) -> None:
        from kite_browser.agent.browser.observation import ActionResult
        from kite_browser.agent.run.memory import describe_result

        action, result, decision = (
            item.get("action") or {},
            item.get("result") or {},
            item.get("decision") or {},
        )
        level = decision.get("level")
        badge = f" [magenta]\\[{escape(level)}][/]" if level and level != "auto" else ""
        try:
            outcome = describe_result(ActionResult.model_validate(result))
        except ValueError:
            outcome = json.dumps(result, ensure_ascii=False)[:500]
        colour = "green" if result.get("ok") else "red"
        self.c.print(f"  {escape(json.dumps(action, ensure_ascii=False))}{badge}")
        for i, line in enumerate(outcome.splitlines() or [""]):
            if self.brief and i >= BRIEF_LINES:
                break
            self.c.print(f"    [{colour}]{'→' if i == 0 else ' '}[/] {escape(line)}")
