"""Eval suites: a task file (agent/batch/tasks.py) that may instead be a MiniWoB++ suite.

    name: miniwob
    kind: miniwob
    miniwob: {tasks: [click-button, enter-text], seeds: [0, 1, 2], max_steps: 15}

``find_suite("sites")`` is the bundled suite file; ``load_suite`` reads any suite or task file.

A task of a suite may also be said in other words, so a score does not rest on one wording (issue 46)::

    - id: mail-reply-lunch
      task: Reply to Marco's lunch invitation and say you are free on Thursday.
      phrasings:
        terse: Reply yes to Marco's lunch invite.
        chatty: Hey, Marco asked me to lunch on Thursday -- could you answer him that I'm free? Thanks!
        list: "1. Open Marco's lunch email. 2. Reply. 3. Say you are free on Thursday. 4. Send."

``Suite.phrased(kind)`` gives the suite with those words (``kite eval --phrasing terse|chatty|list|all``);
every multi-step task (two actions or more in its solution) of a bundled suite has all three.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator

from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.batch.tasks import Check, SolutionStep, Task, TaskFile, parse_tasks, read_raw

__all__ = [
    "PHRASINGS",
    "Check",
    "MiniwobSpec",
    "Phrasings",
    "SolutionStep",
    "Suite",
    "Task",
    "find_suite",
    "is_multi_step",
    "load_suite",
    "parse_suite",
]

Phrasing = Literal["terse", "chatty", "list"]
PHRASINGS: tuple[str, ...] = get_args(Phrasing)
"""The other words a multi-step task is said in: short, conversational, and as a numbered list."""
PHRASING_SEP = ":"
"""Between a task's id and its phrasing in the ids of a phrased suite: ``mail-reply-lunch:terse``."""


class Phrasings(BaseModel):
    """A task said three more ways: the same goal and the same facts, other words."""

    model_config = ConfigDict(extra="forbid")

    terse: str = Field(min_length=1)
    """As few words as will do."""
    chatty: str = Field(min_length=1)
    """As a person talks: greetings, asides, the goal somewhere inside."""
    list: str = Field(min_length=1)
    """A numbered list of steps."""


def is_multi_step(task: Task) -> bool:
    """Whether the oracle's plan for ``task`` takes two actions or more (``done`` not counted)."""
    names = [s if isinstance(s, str) else next(iter(s)) for s in task.solution]
    return len([n for n in names if n != "done"]) >= 2


def base_id(task_id: str) -> tuple[str, str | None]:
    """(the task's own id, its phrasing or None) of an id in a phrased suite."""
    head, sep, tail = task_id.rpartition(PHRASING_SEP)
    return (head, tail) if sep and tail in PHRASINGS else (task_id, None)


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
    phrasings: dict[str, Phrasings] = Field(default_factory=dict)
    """Other words for tasks, by task id (written in the suite file as each task's ``phrasings``)."""

    @model_validator(mode="after")
    def _miniwob(self) -> Suite:
        if self.kind == "miniwob" and self.miniwob is None:
            raise ValueError("a miniwob suite needs a 'miniwob' section")
        unknown = set(self.phrasings) - {t.id for t in self.tasks}
        if unknown:
            raise ValueError(f"phrasings for unknown task id(s): {', '.join(sorted(unknown))}")
        return self

    def phrased(self, kind: str | None, ids: list[str] | None = None) -> Suite:
        """The suite's tasks ``ids`` (all without) said as ``kind``: ``terse``, ``chatty`` or ``list`` (a task
        without phrasings keeps its words), ``all`` (each task with phrasings three times, as
        ``ID:terse``, ``ID:chatty``, ``ID:list``), or None (the words of its ``task``)."""
        if kind not in (None, "all", *PHRASINGS):
            raise UsageError(f"--phrasing: one of {', '.join((*PHRASINGS, 'all'))}, not {kind!r}")
        tasks = self.select(ids)
        if kind is None:
            return self.model_copy(update={"tasks": tasks})
        kinds = PHRASINGS if kind == "all" else (kind,)
        out: list[Task] = []
        for task in tasks:
            words = self.phrasings.get(task.id)
            if words is None:
                out.append(task)
                continue
            for k in kinds:
                said = getattr(words, k)
                out.append(task.model_copy(update={"id": f"{task.id}{PHRASING_SEP}{k}", "task": said}))
        return self.model_copy(update={"tasks": out})


def parse_suite(data: dict[str, Any], path: str = "<suite>") -> Suite:
    """Validate a suite given as plain data; errors name the task and field. Each task's ``phrasings`` goes
    to the suite's ``phrasings`` (by task id)."""
    raw = dict(data)
    tasks = raw.get("tasks")
    if isinstance(tasks, list):
        words = dict(raw.get("phrasings") or {})
        kept = []
        for t in tasks:
            if isinstance(t, dict) and "phrasings" in t:
                t = dict(t)
                words[str(t.get("id"))] = t.pop("phrasings")
            kept.append(t)
        raw["tasks"] = kept
        if words:
            raw["phrasings"] = words
    return parse_tasks(raw, path, Suite)


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
