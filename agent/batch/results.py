"""The one per-task result model, and the results file of ``kite batch``: one JSON line per finished task,
appended and flushed as it finishes.

Resuming reads it back: every id with a complete line is finished. A torn last line (the runner was killed
while writing it) is tolerated: it is not counted, and it is cut off before new lines are appended, so the
file stays valid JSONL. Lines that are not results (hand edits, garbage) are skipped and counted.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, computed_field

from kite_browser.agent.base.result import RunResult
from kite_browser.agent.batch.checks import CheckOutcome


class TaskResult(RunResult):
    """One task of a batch or an eval: the agent's run (every field of ``RunResult``, as ``Agent.run`` returned
    it) plus the task's verdict. One line of ``kite batch``'s results file; one row of an eval report.

    ``success`` is the verdict: the task's check (or MiniWoB's reward) when it has one, else the agent's claim;
    ``claimed_success`` stays what the agent said. ``caveat`` (``RunResult``'s) says what a plain ok would hide."""

    model_config = ConfigDict(extra="ignore")

    id: str
    repeat: int = 0
    """Which repetition (``kite eval --repeat K``): 0 .. K-1."""
    task: str = ""
    """The task text the agent was given (for MiniWoB: the episode's utterance)."""
    score: float = 0.0
    """1.0 / 0.0 from a check or the claim; MiniWoB's raw reward (may be negative or fractional)."""
    check: CheckOutcome | None = None
    """How the verdict was reached (None when the task has no check, or the run never got that far)."""
    wall_s: float = 0.0
    """The whole task: browser context, agent run and check."""
    error: str | None = None
    """Set when the task failed for a reason other than the agent's own work (browser, model, start URL)."""
    model: str | None = None
    tags: list[str] = Field(default_factory=list)
    attempts: int = 1
    """How many times the task was started (a backend may retry a task whose worker died)."""
    finished_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))

    @property
    def key(self) -> str:
        """Unique within a results file: the id, with the repetition when there are several."""
        return self.id if self.repeat == 0 else f"{self.id}#r{self.repeat}"

    @computed_field  # type: ignore[prop-decorator]
    @property
    def tokens(self) -> int:
        return self.tokens_in + self.tokens_out

    @computed_field  # type: ignore[prop-decorator]
    @property
    def overhead_s(self) -> float:
        """Kite's own time: wall time minus the model's latency."""
        return round(max(0.0, self.wall_s - self.model_latency_s), 3)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def failures(self) -> list[str]:
        """Why the verdict is a failure (the check's lines; empty on success)."""
        return [] if self.success or self.check is None else list(self.check.failures)


class ResultsFile(BaseModel):
    """What an existing results file holds."""

    results: dict[str, TaskResult] = Field(default_factory=dict)
    """The last complete result per key (the id; ``id#rN`` for a repetition)."""
    lines: int = 0
    skipped: int = 0
    """Complete lines that are not results."""
    torn: bool = False
    """The last line is incomplete (the writer was killed mid-line)."""


def read_results(path: str | Path) -> ResultsFile:
    p = Path(path)
    out = ResultsFile()
    if not p.is_file():
        return out
    data = p.read_bytes()
    lines = data.split(b"\n")
    tail = lines.pop()  # b"" when the file ends with a newline
    for raw in lines:
        if not raw.strip():
            continue
        out.lines += 1
        result = _parse(raw)
        if result is None:
            out.skipped += 1
        else:
            out.results[result.key] = result
    if tail.strip():
        result = _parse(tail)
        if result is None:
            out.torn = True
        else:  # complete JSON, only the newline is missing
            out.lines += 1
            out.results[result.key] = result
    return out


def _parse(raw: bytes) -> TaskResult | None:
    try:
        return TaskResult.model_validate(json.loads(raw))
    except (ValueError, ValidationError):
        return None


class ResultWriter:
    """Appends one result per line with a single write, flushed to the OS and fsynced."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._repair()
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def _repair(self) -> None:
        """Cut a torn last line off (or end a complete one) so that appended lines start on a new line."""
        if not self.path.is_file():
            return
        data = self.path.read_bytes()
        if not data or data.endswith(b"\n"):
            return
        cut = data.rfind(b"\n") + 1
        if _parse(data[cut:]) is not None:
            with self.path.open("ab") as f:
                f.write(b"\n")
            return
        with self.path.open("r+b") as f:
            f.truncate(cut)

    def write(self, result: TaskResult) -> None:
        line = (json.dumps(result.model_dump(mode="json"), ensure_ascii=False) + "\n").encode()
        view = memoryview(line)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]
        os.fsync(self._fd)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> ResultWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
