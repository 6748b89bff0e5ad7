"""The run record: ``runs/<timestamp>-<id>/`` with run.json, steps.jsonl, screenshots/ and trace.zip.

Everything is written as the run goes (steps.jsonl is appended and flushed per step) so that a crash loses at
most the step in flight. Every object passes through ``redact`` first: secret values never reach the disk.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, Field

Redactor = Callable[[Any], Any]


class _JsonRecord(Protocol):
    def to_json(self) -> dict[str, Any]: ...


StepLike = _JsonRecord | dict[str, Any]


class RefusedAction(BaseModel):
    """An action the safety gate did not run (the user declined it, or the policy blocked it)."""

    step: int
    action: str
    """The action as described to the user ("click button \"Permanently delete\"")."""
    outcome: str
    """declined | blocked"""
    reason: str = ""


class RunResult(BaseModel):
    """What ``Agent.run`` returns."""

    success: bool
    claimed_success: bool = False
    """What the model said (``done(success=...)``); ``success`` is Kite's reading of the run: a claimed success
    is not a success while an action the run needed was declined or blocked (``declined``)."""
    declined: list[RefusedAction] = Field(default_factory=list)
    """Actions declined by the user or blocked by the policy and never run afterwards with approval."""
    answer: str = ""
    stop_reason: str
    """done | max_steps | max_failures | loop_detected | max_cost | max_tokens | interrupted | start_url_unreachable |
    task_ended | error"""
    message: str = ""
    steps: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float | None = None
    duration_s: float = 0.0
    model_latency_s: float = 0.0
    run_dir: str | None = None
    final_url: str | None = None


def _default(obj: Any) -> Any:
    if isinstance(obj, BaseModel):
        return obj.model_dump(mode="json", by_alias=True)
    if isinstance(obj, Path):
        return str(obj)
    if isinstance(obj, set | frozenset | tuple):
        return list(obj)
    return repr(obj)


class RunRecorder:
    def __init__(self, run_dir: Path, redact: Redactor | None = None) -> None:
        self.run_dir = run_dir
        self.redact: Redactor = redact or (lambda x: x)
        self.screenshots = run_dir / "screenshots"
        self.downloads = run_dir / "downloads"
        for d in (self.run_dir, self.screenshots, self.downloads):
            d.mkdir(parents=True, exist_ok=True)
        self._steps = (run_dir / "steps.jsonl").open("a", encoding="utf-8")
        self._run: dict[str, Any] = {}

    @classmethod
    def create(
        cls, runs_dir: str | Path, redact: Redactor | None = None, label: str | None = None
    ) -> RunRecorder:
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        name = f"{stamp}-{label or secrets.token_hex(3)}"
        return cls(Path(runs_dir) / name, redact)

    def _dump(self, obj: Any) -> str:
        return json.dumps(self.redact(json.loads(json.dumps(obj, default=_default))), ensure_ascii=False)

    def start(self, **info: Any) -> None:
        self._run = {"started_at": datetime.now(UTC).isoformat(), **info, "result": None}
        self._write_run()

    def step(self, record: StepLike) -> None:
        data = record.to_json() if not isinstance(record, dict) else record
        self._steps.write(self._dump({"t": time.time(), **data}) + "\n")
        self._steps.flush()

    def finish(self, result: RunResult) -> None:
        self._run["finished_at"] = datetime.now(UTC).isoformat()
        self._run["result"] = result
        self._write_run()
        self._steps.close()

    def _write_run(self) -> None:
        tmp = self.run_dir / "run.json.tmp"
        tmp.write_text(
            json.dumps(json.loads(self._dump(self._run)), indent=2, ensure_ascii=False), encoding="utf-8"
        )
        tmp.replace(self.run_dir / "run.json")
