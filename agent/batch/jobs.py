"""Turn a task file into batch jobs: validated tasks (evals/tasks.py), placeholders filled, and per task the
config, secrets and approvals it runs with.

A task's own ``model``, ``max_steps``, ``secrets``, ``allowed_domains`` and ``approve`` override the command's
(``secrets`` are merged by name, the task's winning). Every problem is a one-line ``UsageError`` that names
the file, the task (position and id) and, where pydantic found it, the field.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.config import KiteConfig, with_overrides
from agent.errors import ConfigError, UsageError
from evals.tasks import Task, load_suite
from safety.confirm import BatchConfirmer
from safety.secrets import SecretStore

ModelResolver = Callable[[KiteConfig], Awaitable[KiteConfig]]


@dataclass
class BatchJob:
    """One task, ready to run."""

    position: int
    """1-based position in the task file."""
    task: Task
    """With {sites}/{cross}/{suite_dir} filled in."""
    config: KiteConfig
    secrets: SecretStore
    approve: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.task.id

    @property
    def label(self) -> str:
        return re.sub(r"[^A-Za-z0-9_.-]+", "-", self.task.id)


@dataclass
class TaskFile:
    path: Path
    tasks: list[Task]
    fields_set: list[frozenset[str]]
    """Which fields each task (or the file's defaults) gave explicitly."""

    def uses_sites(self) -> bool:
        return any("{sites}" in t.model_dump_json() or "{cross}" in t.model_dump_json() for t in self.tasks)


def read_task_file(path: str | Path) -> TaskFile:
    """Load and validate a YAML or JSONL task file (the task model is evals/tasks.py's)."""
    p = Path(path)
    if p.is_dir():
        raise UsageError(f"{p} is a folder: give a YAML or JSONL task file")
    suite = load_suite(p)
    if suite.kind == "miniwob":
        raise UsageError(f"{p} is a MiniWoB suite: run it with 'kite eval {p}'")
    if not suite.tasks:
        raise UsageError(f"{p}: no tasks")
    return TaskFile(p, list(suite.tasks), [frozenset(t.model_fields_set) for t in suite.tasks])


def _where(tf: TaskFile, i: int) -> str:
    return f"{tf.path}: task #{i + 1} ({tf.tasks[i].id})"


def _overrides(task: Task, given: frozenset[str], base: KiteConfig, upload_dir: str) -> dict[str, Any]:
    over: dict[str, Any] = {"browser.upload_dirs": [*base.browser.upload_dirs, upload_dir]}
    if task.model:
        over["llm.model"] = task.model
    if task.max_steps:
        over["agent.max_steps"] = task.max_steps
    if "allowed_domains" in given:
        over["safety.allowed_domains"] = list(task.allowed_domains)
    if "approve" in given:
        over["safety.approve"] = list(task.approve)
    return over


async def build_jobs(
    tf: TaskFile,
    base: KiteConfig,
    *,
    placeholders: dict[str, str],
    cli_secrets: Iterable[str] = (),
    resolve_model: ModelResolver | None = None,
) -> list[BatchJob]:
    """One job per task; models that need resolving (``local`` or none) are resolved once, on demand."""
    upload_dir = str(tf.path.resolve().parent)
    resolved: dict[str | None, KiteConfig] = {}
    jobs = []
    for i, raw in enumerate(tf.tasks):
        task = raw.resolve(placeholders)
        try:
            config = with_overrides(base, _overrides(task, tf.fields_set[i], base, upload_dir))
            model = config.llm.model
            if resolve_model is not None and (not model or model == "local"):
                if model not in resolved:
                    resolved[model] = await resolve_model(config)
                config = config.model_copy(update={"llm": resolved[model].llm})
            if not config.llm.model:
                raise UsageError("no model: pass --model, set KITE_MODEL, or give the task a 'model'")
            task_secrets = [f"{k}={v}" for k, v in task.secrets.items()]
            secrets = SecretStore.from_sources(config.safety, cli=[*cli_secrets, *task_secrets])
            BatchConfirmer(config.safety.approve)  # validates the approvals
        except (UsageError, ConfigError) as exc:
            raise UsageError(f"{_where(tf, i)}: {exc.message}") from exc
        jobs.append(BatchJob(i + 1, task, config, secrets, list(config.safety.approve)))
    _register_fakes(jobs)
    return jobs


def _register_fakes(jobs: list[BatchJob]) -> None:
    """Fake models (``kite/...``) live in a litellm provider that must be installed first."""
    if any((j.config.llm.model or "").startswith("kite/") for j in jobs):
        from agent.llm.fakes import register_fakes

        register_fakes()
