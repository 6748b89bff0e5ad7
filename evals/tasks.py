"""Eval suites: a task file (agent/batch/tasks.py) that may instead be a MiniWoB++ suite.

    name: miniwob
    kind: miniwob
    miniwob: {tasks: [click-button, enter-text], seeds: [0, 1, 2], max_steps: 15}

``find_suite("sites")`` is the bundled suite file; ``load_suite`` reads any suite or task file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from kite_browser.agent.batch.tasks import Check, SolutionStep, Task, TaskFile, parse_tasks, read_raw
from kite_browser.agent.errors import UsageError

__all__ = ["Check", "MiniwobSpec", "SolutionStep", "Suite", "Task", "find_suite", "load_suite", "parse_suite"]


class MiniwobSpec(BaseModel):
    """A MiniWoB++ suite: episodes of these task types, one per seed."""

    model_config = ConfigDict(extra="forbid")

    tasks: list[str] = Field(min_length=1)
    """Task type names (the HTML file names without .html), e.g. click-button."""
    seeds: list[int] = Field(default_factory=lambda: list(range(10)))
    max_steps: int = Field(12, ge=1)
    episode_max_time_s: float = Field(600.0, gt=0)
    """The episode's own time limit (MiniWoB's default 10 s is far too short for real models)."""
    data_mode: Literal["train", "test", "default"] = "train"
    approve: list[str] = Field(default_factory=lambda: ["confirm"])
    """Batch confirmer for the episodes: MiniWoB pages are games, and words in their URLs (e.g. 'transfer')
    would otherwise make the safety policy ask before every submit."""


class Suite(TaskFile):
    """A task file, or a MiniWoB++ suite (``kind: miniwob`` with a ``miniwob`` section)."""

    kind: Literal["tasks", "miniwob"] = "tasks"
    miniwob: MiniwobSpec | None = None

    @model_validator(mode="after")
    def _miniwob(self) -> Suite:
        if self.kind == "miniwob" and self.miniwob is None:
            raise ValueError("a miniwob suite needs a 'miniwob' section")
        return self


def parse_suite(data: dict[str, Any], path: str = "<suite>") -> Suite:
    """Validate a suite given as plain data; errors name the task and field."""
    return parse_tasks(data, path, Suite)


def load_suite(path: str | Path) -> Suite:
    """Read a suite or task file (YAML or JSONL)."""
    return parse_suite(read_raw(path), str(path))


SUITES_DIR = Path(__file__).parent / "suites"


def find_suite(name_or_path: str) -> Path:
    """``sites`` / ``miniwob`` → the bundled suite file; anything else is a path."""
    bundled = SUITES_DIR / f"{name_or_path}.yaml"
    if bundled.is_file():
        return bundled
    p = Path(name_or_path)
    if not p.is_file():
        names = sorted(f.stem for f in SUITES_DIR.glob("*.yaml"))
        raise UsageError(f"no suite '{name_or_path}': give a file, or one of {', '.join(names)}")
    return p
