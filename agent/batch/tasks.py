"""The task model and task files, shared by ``kite batch`` (task files) and ``kite eval`` (suites extend
``TaskFile`` in evals/tasks.py).

A task file is YAML (or JSONL: one task per line)::

    name: sites
    defaults: {max_steps: 20, approve: [confirm]}
    tasks:
      - id: shop-add-to-cart
        task: Add the blue mug to the cart.
        start_url: "{sites}/shop/"
        check: {url: "/shop/cart", state: {"cart.count": 1}}
        solution: [{click: {name: "Blue mug"}}, {click: {name: "Add to cart"}}, done]
      - id: shop-cheapest-mugs
        task: The three cheapest mugs, with name and price.
        output_schema: schemas/mugs.json       # or the JSON schema inline
        check: {data: {"length": 3, "0.name": "White Porcelain Mug", "0.price": 6.49}}

``start_url``, ``task``, ``check`` and ``solution`` may use ``{sites}`` / ``{cross}`` (the bundled sites'
two origins) and ``{suite_dir}`` (the folder of the task file); ``resolve`` fills them in. Validation
errors name the file, the task (id and position) and the field.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Self, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import ErrorDetails

from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.base.jsontypes import JsonObject, JsonValue
from kite_browser.agent.browser.actions import ACTION_NAMES

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:#-]*$")
PLACEHOLDERS = ("sites", "cross", "suite_dir")
T = TypeVar("T", bound="TaskFile")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Check(_Model):
    """Success, scored independently of what the model claims. Every field given must hold."""

    url: str | None = None
    """A regular expression searched in the final URL of the active tab."""
    text: str | list[str] | None = None
    """Text the final page must contain (all frames' visible text; every item of a list)."""
    not_text: str | list[str] | None = None
    """Text the final page must NOT contain."""
    js: str | list[str] | None = None
    """JavaScript expressions evaluated in the final page; each must be truthy."""
    state: JsonObject | None = None
    """Dotted keys of the JSON state endpoint and the values they must equal, e.g. {"cart.count": 2}."""
    state_url: str = "/api/state"
    """The state endpoint, fetched inside the task's browser context (so its cookies apply)."""
    confirmed: bool | str | None = None
    """true: some action needed the user's confirmation; a name: an action of that name did; false: none did."""
    answer: str | None = None
    """A regular expression (case-insensitive) searched in the agent's final answer."""
    data: JsonObject | None = None
    """Keys into the run's structured answer (``done``'s data) and the values they must equal, written as
    for ``state``: ``{"0.name": "White Porcelain Mug", "length": 3}`` (``length``: a list's length;
    ``/a.b/c`` for keys with dots)."""

    @model_validator(mode="after")
    def _something(self) -> Check:
        fields = ("url", "text", "not_text", "js", "state", "confirmed", "answer", "data")
        if all(getattr(self, f) is None for f in fields):
            raise ValueError(f"a check needs at least one of: {', '.join(fields)}")
        for pattern in (self.url, self.answer):
            if pattern is not None:
                try:
                    re.compile(pattern)
                except re.error as exc:
                    raise ValueError(f"invalid regular expression {pattern!r}: {exc}") from exc
        if isinstance(self.confirmed, str) and self.confirmed not in ACTION_NAMES:
            raise ValueError(f"confirmed: unknown action {self.confirmed!r}")
        return self


StepParams = dict[str, Any]
"""A plan step's parameters: the action's own (``text``, ``direction``…), the spec of its element (``name``,
``role``…, found in the element list) and the oracle's words (``optional``, ``answer_from``…)."""
SolutionStep = dict[str, StepParams | None] | str
"""One step of an oracle plan: ``{click: {name: "Add to cart"}}`` (one action: its parameters) or a bare action
name (``goBack``)."""


class Task(_Model):
    """One task: what to do, where to start, how to score it, and optionally a plan for the oracle model."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    id: str
    """Unique within its file; letters, digits and _ . : # -."""
    task: str = Field(min_length=1)
    """The task in plain language."""
    start_url: str | None = None
    """Where the browser starts ({sites} and {cross} are the bundled sites)."""
    model: str | None = None
    """A model for this task only (else the run's model)."""
    max_steps: int | None = Field(None, ge=1)
    """Step limit for this task (else the run's)."""
    secrets: dict[str, str] = Field(default_factory=dict)
    """Secrets the agent may type as <secret>name</secret>."""
    allowed_domains: list[str] = Field(default_factory=list)
    """If given, only these domains may load."""
    tags: list[str] = Field(default_factory=list)
    """Labels of your own, copied into the task's result."""
    approve: list[str] = Field(default_factory=list)
    """Batch confirmer: levels or actions approved without asking (e.g. [confirm], [executeJS])."""
    output_schema: JsonObject | str | None = None
    """A JSON schema the structured answer (``done``'s data) must match: inline, or the path of a JSON file
    (relative to the task file's folder)."""

    @property
    def resolved_schema(self) -> JsonObject | None:
        """The output schema once read (``build_jobs`` reads a path's file): a path still unread is an error."""
        if isinstance(self.output_schema, str):
            raise UsageError(f"task {self.id}: output_schema {self.output_schema!r} was not read")
        return self.output_schema

    check: Check | None = None
    """How success is scored; without one, the agent's own claim (done success=true) is used."""
    workflow: str | None = None
    """A workflow file (``kite workflow save``; a path relative to the task file's folder): the task replays it
    with no model instead of running the agent, and its ``check`` scores the replay."""
    cache: bool = False
    """Run through the task cache (``kite run --cache``): the last successful run of the same task replays
    with no model call, healing with the task's model when the page changed; the first run records it."""
    solution: list[SolutionStep] = Field(default_factory=list)
    """The oracle's plan: one action per step, elements found by name/role in the rendered element list."""

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        if not _ID.match(value):
            raise ValueError("use letters, digits and _ . : # - (starting with a letter or digit)")
        return value

    @field_validator("solution", mode="before")
    @classmethod
    def _solution(cls, steps: object) -> object:
        """Checked before the steps' type, for these messages (a step not a string or a mapping: the type's)."""
        for i, step in enumerate(steps if isinstance(steps, list) else []):
            if not isinstance(step, str | dict):
                continue
            name = step if isinstance(step, str) else (next(iter(step)) if len(step) == 1 else None)
            if name is None:
                raise ValueError(f"step {i}: write one action per step, as {{action: {{params}}}}")
            if name not in ACTION_NAMES:
                raise ValueError(f"step {i}: unknown action {name!r}; valid: {', '.join(ACTION_NAMES)}")
            if isinstance(step, dict) and not isinstance(step[name], dict | type(None)):
                raise ValueError(f"step {i}: the parameters of {name!r} must be a mapping")
        return steps

    def resolve(self, values: dict[str, str]) -> Task:
        """A copy with {sites}/{cross}/{suite_dir} filled in everywhere."""
        data = _fill(self.model_dump(), values)
        return Task.model_validate(data)


class TaskFile(_Model):
    """A named list of tasks, with defaults applied to each task (a batch file; eval suites extend it)."""

    name: str
    description: str = ""
    defaults: JsonObject = Field(default_factory=dict)
    tasks: list[Task] = Field(default_factory=list)
    sites_variant: int = Field(0, ge=0, le=3)
    """The page variant of the bundled sites ``{sites}`` starts (evals/sites/variants.py): 0 as designed; 1 ids
    and classes renamed, lists reordered; 2 also labels changed to synonyms and a product on page 2; 3 also a
    cookie banner to close first."""
    path: str | None = None
    """Where the file was read from (set by the loader)."""

    @model_validator(mode="after")
    def _unique(self) -> Self:
        seen: dict[str, int] = {}
        for i, t in enumerate(self.tasks):
            if t.id in seen:
                raise ValueError(f"task #{i + 1} ({t.id}): id already used by task #{seen[t.id] + 1}")
            seen[t.id] = i
        return self

    def select(self, ids: list[str] | None) -> list[Task]:
        """The tasks with these ids, in the order given (all of them, in file order, without ids)."""
        if not ids:
            return list(self.tasks)
        by_id = {t.id: t for t in self.tasks}
        missing = [i for i in ids if i not in by_id]
        if missing:
            raise UsageError(f"unknown task id(s) in {self.name}: {', '.join(missing)}")
        return [by_id[i] for i in dict.fromkeys(ids)]

    def folder(self) -> Path:
        """The folder of the file (task paths such as uploads are relative to it); else the working folder."""
        return Path(self.path).resolve().parent if self.path and Path(self.path).exists() else Path.cwd()

    def uses_sites(self) -> bool:
        """Whether a task names the bundled sites ({sites} or {cross}), which must then be started."""
        return any("{sites}" in t.model_dump_json() or "{cross}" in t.model_dump_json() for t in self.tasks)


def _fill(node: JsonValue, values: dict[str, str]) -> JsonValue:
    if isinstance(node, str):
        for key in PLACEHOLDERS:
            if key in values:
                node = node.replace("{" + key + "}", values[key])
        return node
    if isinstance(node, list):
        return [_fill(x, values) for x in node]
    if isinstance(node, dict):
        return {k: _fill(v, values) for k, v in node.items()}
    return node


def _where(err: ErrorDetails, raw_tasks: list[JsonValue], path: str) -> str:
    loc = list(err["loc"])
    if len(loc) >= 2 and loc[0] == "tasks" and isinstance(loc[1], int):
        i = loc[1]
        raw = raw_tasks[i] if i < len(raw_tasks) else {}
        tid = raw.get("id") if isinstance(raw, dict) else None
        field = ".".join(str(p) for p in loc[2:]) or "(the task)"
        return f"{path}: task #{i + 1}{f' ({tid})' if tid else ''}, field '{field}'"
    return f"{path}: field '{'.'.join(str(p) for p in loc) or '(top level)'}'"


def _read_raw(path: Path) -> JsonObject:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"cannot read {path}: it is not UTF-8 text (byte {exc.start}); save it as UTF-8"
        ) from exc
    if path.suffix == ".jsonl":
        tasks = []
        for n, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    tasks.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise UsageError(f"{path} line {n}: invalid JSON ({exc.msg})") from exc
        return {"name": path.stem, "tasks": tasks}
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise UsageError(f"{path}{f' line {mark.line + 1}' if mark else ''}: invalid YAML") from exc
    if isinstance(data, list):
        data = {"tasks": data}
    if not isinstance(data, dict):
        raise UsageError(f"{path}: expected a mapping with 'tasks' or a list of tasks")
    data.setdefault("name", path.stem)
    return data


def parse_tasks(data: JsonObject, path: str = "<tasks>", model: type[T] = TaskFile) -> T:  # type: ignore[assignment]
    """Validate a task file (or a suite: ``model``) given as plain data; errors name the task and field."""
    data = {"name": Path(path).stem, **data}
    raw_tasks = data.get("tasks") or []
    if not isinstance(raw_tasks, list):
        raise UsageError(f"{path}: 'tasks' must be a list")
    defaults = data.get("defaults") or {}
    if not isinstance(defaults, dict):
        raise UsageError(f"{path}: 'defaults' must be a mapping")
    merged = [{**defaults, **t} if isinstance(t, dict) else t for t in raw_tasks]
    try:
        return model.model_validate({**data, "tasks": merged, "path": path})
    except ValidationError as exc:
        err = exc.errors()[0]
        msg = err["msg"].removeprefix("Value error, ")
        raise UsageError(f"{_where(err, raw_tasks, path)}: {msg}") from exc


def read_raw(path: str | Path) -> JsonObject:
    """A task file's plain data (YAML: a mapping or a list of tasks; JSONL: one task per line)."""
    return _read_raw(Path(path))
