"""Turn tasks into jobs: validated tasks (agent/batch/tasks.py), placeholders filled, and per task the config,
secrets, approvals and scorer it runs with.

A task's own ``model``, ``max_steps``, ``secrets``, ``allowed_domains`` and ``approve`` override the command's
(``secrets`` are merged by name, the task's winning); a ``max_steps`` given to ``build_jobs`` (``kite eval
--max-steps``) overrides every task's. Every problem is a one-line ``UsageError`` that names the file, the
task (position and id) and, where pydantic found it, the field.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from kite_browser.agent.base.errors import ConfigError, UsageError
from kite_browser.agent.base.jsontypes import JsonObject
from kite_browser.agent.batch.scoring import CheckScorer, Scorer
from kite_browser.agent.batch.tasks import Task, TaskFile, parse_tasks, read_raw
from kite_browser.agent.browser.start_url import check_start_url
from kite_browser.agent.config import KiteConfig, with_overrides
from kite_browser.agent.llm.model import Model
from kite_browser.agent.llm.model_names import is_fake, is_local
from kite_browser.agent.llm.resolve import ConfigPreparer
from kite_browser.safety.confirm import BatchConfirmer
from kite_browser.safety.secrets import SecretStore


def safe_label(text: str) -> str:
    """A run folder's label: letters, digits and _ . - only."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text)


@dataclass
class Job:
    """One task (one repetition), ready to run anywhere: every part is plain picklable data."""

    position: int
    """1-based position in the task file."""
    task: Task
    """With {sites}/{cross}/{suite_dir} filled in."""
    config: KiteConfig
    secrets: SecretStore
    approve: list[str] = field(default_factory=list)
    repeat: int = 0
    scorer: Scorer = field(default_factory=CheckScorer)
    label: str = ""
    """The run folder's label (default: the id)."""
    model: Model | None = None
    """The model object to run with (an eval's oracle); None: the one ``config.llm`` names."""

    def __post_init__(self) -> None:
        self.label = self.label or safe_label(self.task.id)

    @property
    def id(self) -> str:
        return self.task.id

    @property
    def key(self) -> str:
        """Unique within a batch: the id, with the repetition when there are several."""
        return self.id if self.repeat == 0 else f"{self.id}#r{self.repeat}"


def read_task_file(path: str | Path) -> TaskFile:
    """Load and validate a YAML or JSONL task file."""
    p = Path(path)
    if p.is_dir():
        raise UsageError(f"{p} is a folder: give a YAML or JSONL task file")
    data = read_raw(p)
    if data.get("kind") == "miniwob":
        raise UsageError(f"{p} is a MiniWoB suite: run it with 'kite eval {p}'")
    tf: TaskFile = parse_tasks(data, str(p))
    if not tf.tasks:
        raise UsageError(f"{p}: no tasks")
    return tf


def _where(tf: TaskFile, i: int) -> str:
    return f"{tf.path}: task #{i + 1} ({tf.tasks[i].id})"


def _overrides(task: Task, given: set[str], base: KiteConfig, upload_dir: str) -> JsonObject:
    over: JsonObject = {"browser.upload_dirs": [*base.browser.upload_dirs, upload_dir]}
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
    prepare_config: ConfigPreparer | None = None,
    ids: list[str] | None = None,
    max_steps: int | None = None,
    repeat: int = 1,
    label_prefix: str = "",
) -> list[Job]:
    """One job per task (and repetition); models that need resolving (``local`` or none) are resolved once."""
    folder = tf.folder()
    resolved: dict[str | None, KiteConfig] = {}
    chosen = tf.select(ids)
    jobs = []
    for raw in chosen:
        i = tf.tasks.index(raw)
        task = raw.resolve(placeholders)
        try:
            over = _overrides(task, set(raw.model_fields_set), base, str(folder))
            if max_steps is not None:
                over["agent.max_steps"] = max_steps
            config = with_overrides(base, over)
            model = config.llm.model
            if prepare_config is not None and is_local(model):
                if model not in resolved:
                    resolved[model] = await prepare_config(config)
                config = config.model_copy(update={"llm": resolved[model].llm})
            if not config.llm.model:
                raise UsageError("no model: pass --model, set KITE_MODEL, or give the task a 'model'")
            task = _with_workflow(_with_schema(task, folder), folder)
            start = check_start_url(task.start_url, config.browser, flag="start_url")  # before any browser
            task = task.model_copy(update={"start_url": start})
            task_secrets = [f"{k}={v}" for k, v in task.secrets.items()]
            secrets = SecretStore.from_sources(config.safety, cli=[*cli_secrets, *task_secrets])
            BatchConfirmer(config.safety.approve)  # validates the approvals
        except (UsageError, ConfigError) as exc:
            raise UsageError(f"{_where(tf, i)}: {exc.message}") from exc
        for rep in range(repeat):
            label = safe_label(f"{label_prefix}{task.id}" + (f"-r{rep}" if label_prefix else ""))
            jobs.append(Job(i + 1, task, config, secrets, list(config.safety.approve), rep, label=label))
    register_models(jobs)
    return jobs


def _with_workflow(task: Task, folder: Path) -> Task:
    """The task with its ``workflow`` an absolute path, the file loaded once to check it (a UsageError)."""
    from kite_browser.agent.workflow.model import load_workflow

    if task.workflow is None:
        return task
    path = Path(task.workflow).expanduser()
    path = path if path.is_absolute() else folder / path
    load_workflow(path)
    return task.model_copy(update={"workflow": str(path)})


def _with_schema(task: Task, folder: Path) -> Task:
    """The task with its ``output_schema`` read (a path) and checked; a UsageError when it is no schema."""
    from kite_browser.agent.run.output import check_schema, load_schema

    given = task.output_schema
    if given is None:
        return task
    if isinstance(given, str):
        path = Path(given) if Path(given).is_absolute() else folder / given
        schema = load_schema(path, "output_schema")
    else:
        schema = check_schema(given, "output_schema")
    return task.model_copy(update={"output_schema": schema})


def register_models(jobs: list[Job]) -> None:
    """Fake models (``kite/...``) live in a litellm provider that must be installed first."""
    if any(is_fake(j.config.llm.model) for j in jobs):
        from kite_browser.agent.llm.fakes import register_fakes

        register_fakes()
