"""The results file of ``kite batch``: one JSON line per finished task, appended and flushed as it finishes.

Resuming reads it back: every id with a complete line is finished. A torn last line (the runner was killed
while writing it) is tolerated: it is not counted, and it is cut off before new lines are appended, so the
file stays valid JSONL. Lines that are not results (hand edits, garbage) are skipped and counted.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from evals.checks import CheckOutcome


class BatchResult(BaseModel):
    """One line of the results file."""

    id: str
    success: bool
    """From the task's check when it has one, else the agent's own claim."""
    claimed_success: bool = False
    """What the agent said (done success=...)."""
    check: CheckOutcome | None = None
    """The check's outcome (None when the task has no check, or the run never got that far)."""
    answer: str = ""
    stop_reason: str = ""
    """The loop's stop reason (done, max_steps, model_error ...), or batch_error when Kite could not run it."""
    message: str = ""
    steps: int = 0
    tokens: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float | None = None
    """USD, when the model's price is known."""
    wall_s: float = 0.0
    run_dir: str | None = None
    error: str | None = None
    """Set when the task failed for a reason other than the agent's own work (browser, model, start URL)."""
    model: str | None = None
    final_url: str | None = None
    tags: list[str] = Field(default_factory=list)
    finished_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))


class ResultsFile(BaseModel):
    """What an existing results file holds."""

    results: dict[str, BatchResult] = Field(default_factory=dict)
    """The last complete result per id."""
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
            out.results[result.id] = result
    if tail.strip():
        result = _parse(tail)
        if result is None:
            out.torn = True
        else:  # complete JSON, only the newline is missing
            out.lines += 1
            out.results[result.id] = result
    return out


def _parse(raw: bytes) -> BatchResult | None:
    try:
        return BatchResult.model_validate(json.loads(raw))
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

    def write(self, result: BatchResult) -> None:
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
