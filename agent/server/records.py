"""Runs on disk: the run records under ``run.runs_dir`` read back as the runs API shows them, so the panel's
list survives a restart of ``kite serve``. A record is a folder with ``run.json`` (and ``steps.jsonl``,
``screenshots/``); its id is the folder's name. Summaries are cached by the file's mtime."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from kite_browser.agent.base.result import ERROR_STOPS, StopReason
from kite_browser.agent.run.record import RunResult
from kite_browser.agent.server.run_models import (
    ActionView,
    RunStatus,
    RunSummary,
    RunView,
    StepView,
    outcome_of,
)

NAME_CHARS = 128
LIVE_ID = re.compile(r"[0-9a-f]{10}")
"""The id ``kite serve`` gives a run it starts (its record folder is ``<time>-<id>``): it stays the run's id
after a restart, as a bookmark or a stored id has it."""


class RunRecords:
    """The finished (or interrupted) runs whose records are in ``runs_dir``."""

    def __init__(self, runs_dir: str | Path) -> None:
        self.root = Path(runs_dir).expanduser()
        self._cache: dict[Path, tuple[float, RunSummary | None]] = {}

    def folder(self, run_id: str) -> Path | None:
        """The record folder named ``run_id`` (a plain name inside ``runs_dir`` with a run.json), or None."""
        if (
            not run_id
            or len(run_id) > NAME_CHARS
            or "/" in run_id
            or "\\" in run_id
            or run_id.startswith(".")
        ):
            return None
        path = self.root / run_id
        if (path / "run.json").is_file():
            return path
        if LIVE_ID.fullmatch(run_id):  # the id a run had while it ran: its folder ends with it
            found = [p for p in self.root.glob(f"*-{run_id}") if (p / "run.json").is_file()]
            return found[0] if len(found) == 1 else None
        return None

    def summaries(self) -> list[RunSummary]:
        """Every readable record, newest first (records that are not runs, e.g. ``kite mcp``'s, are left out)."""
        if not self.root.is_dir():
            return []
        out = []
        for run_json in self.root.glob("*/run.json"):
            summary = self._summary(run_json)
            if summary is not None:
                out.append(summary)
        return sorted(out, key=lambda s: s.created_at, reverse=True)

    def _summary(self, run_json: Path) -> RunSummary | None:
        try:
            mtime = run_json.stat().st_mtime
        except OSError:
            return None
        cached = self._cache.get(run_json)
        if cached is not None and cached[0] == mtime:
            return cached[1]
        summary = _summary_of(run_json.parent.name, _read_json(run_json))
        self._cache[run_json] = (mtime, summary)
        return summary

    def view(self, run_id: str) -> RunView | None:
        folder = self.folder(run_id)
        if folder is None:
            return None
        data = _read_json(folder / "run.json")
        summary = _summary_of(run_id, data)
        if summary is None or data is None:
            return None
        result = _result(data)
        profile = ((data.get("config") or {}).get("browser") or {}).get("profile")
        return RunView(
            **summary.model_dump(),
            start_url=data.get("start_url"),
            profile=profile if isinstance(profile, str) else None,
            max_steps=int((data.get("config") or {}).get("agent", {}).get("max_steps") or 0),
            steps=_steps(folder, run_id),
            result=result,
        )


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    return data if isinstance(data, dict) else None


def _result(data: dict[str, Any]) -> RunResult | None:
    raw = data.get("result")
    if not isinstance(raw, dict):
        return None
    try:
        return RunResult.model_validate(raw)
    except ValidationError:
        return None


def _summary_of(run_id: str, data: dict[str, Any] | None) -> RunSummary | None:
    if data is None or not isinstance(data.get("task"), str):
        return None
    result = _result(data)
    status: RunStatus = "finished"
    if result is None:
        status = "stopped"  # the server that ran it stopped before the run could end
    elif result.stop_reason is StopReason.INTERRUPTED:
        status = "stopped"
    elif result.stop_reason in ERROR_STOPS:
        status = "failed"
    return RunSummary(
        id=run_id,
        status=status,
        outcome=outcome_of(status, result),
        task=data["task"],
        model=str(data.get("model") or ""),
        created_at=str(data.get("started_at") or ""),
        finished_at=data.get("finished_at"),
        step_count=result.steps if result else 0,
        success=result.success if result else None,
        stop_reason=result.stop_reason if result else None,
        answer=result.answer if result else "",
        caveat=result.caveat if result else "",
        on_disk=True,
    )


def _steps(folder: Path, run_id: str) -> list[StepView]:
    path = folder / "steps.jsonl"
    if not path.is_file():
        return []
    out = []
    for line in path.read_bytes().splitlines():
        try:
            step = json.loads(line)
        except (UnicodeDecodeError, json.JSONDecodeError):
            continue  # a torn last line
        if not isinstance(step, dict) or not isinstance(step.get("step"), int):
            continue
        out.append(_step(folder, run_id, step))
    return out


def _step(folder: Path, run_id: str, step: dict[str, Any]) -> StepView:
    from kite_browser.agent.run.memory import describe_action

    n = step["step"]
    observation = step.get("observation") or {}
    shot = folder / "screenshots" / f"step-{n:03d}.png"
    actions = []
    for outcome in step.get("actions") or []:
        if not isinstance(outcome, dict) or not isinstance(outcome.get("action"), dict):
            continue
        decision = outcome.get("decision") or {}
        result = outcome.get("result") or {}
        actions.append(
            ActionView(
                action=describe_action(outcome["action"]),
                level=str(decision.get("level") or "auto"),
                allowed=decision.get("allowed"),
                ok=result.get("ok") if decision.get("allowed", True) else None,
                message=str(result.get("message") or ""),
            )
        )
    errors = [f"{e.get('error')}: {e.get('message')}" for e in (step.get("parse_error"),) if e]
    return StepView(
        step=n,
        url=str(observation.get("url") or step.get("url") or ""),
        title=str(observation.get("title") or ""),
        screenshot_url=f"/api/runs/{run_id}/screenshots/{n}" if shot.is_file() else None,
        tokens=int((step.get("usage") or {}).get("tokens") or 0),
        thought=str(step.get("thought") or ""),
        actions=actions,
        errors=errors,
    )
