"""The workflow file: a start URL, named variables and the steps of a successful run, in readable YAML.

A step is one of Kite's own actions (its name and arguments as in the action registry, without the element
index), the **fingerprint** of its target (agent/browser/fingerprint.py) and the **expected effect** the
replay checks after it ran. A value the user may change is a variable, written ``{name}`` in an argument;
a secret is named only, as in a task (``<secret>name</secret>``), and filled from the same sources as in a
run: its value is never in the file.

``load_workflow`` turns every problem into one typed error of one line (agent/workflow/errors.py);
``dump_workflow(load_workflow(f))`` gives back the file ``dump_workflow`` wrote.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal, overload

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kite_browser.agent.base.jsontypes import JsonObject, JsonValue
from kite_browser.agent.browser.actions import ACTION_NAMES, parse_action
from kite_browser.agent.browser.observation import Fingerprint
from kite_browser.agent.workflow.errors import (
    WorkflowInvalidError,
    WorkflowMissingVariableError,
    WorkflowNotYamlError,
    WorkflowUnknownActionError,
)
from kite_browser.safety.secrets import PLACEHOLDER_RE

VAR_RE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
"""A variable in an argument: ``{search}``."""
HEADER = "# A Kite workflow: kite replay FILE [--var name=value ...]; its schema: kite workflow schema\n"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Variable(_Model):
    """A value the replay fills in: ``--var name=value``, else its default. A secret has no default: its value
    comes from the secret sources of a run (``--secret``, ``KITE_SECRET_<NAME>``, ``safety.secrets``)."""

    default: str | None = None
    secret: bool = False


class Expect(_Model):
    """What the step did in the recorded run, checked after it runs again."""

    url: str | None = None
    """The path (and query) navigated to, a shell-style pattern (``/shop/product/*``); the origin is not
    compared, so a replay on another origin (``--start-url``) checks the same path."""
    value: str | None = None
    """The value the target field holds afterwards (variables allowed)."""
    new_tab: bool = False
    """The step opened a new tab."""
    refused: Literal["declined", "blocked"] | None = None
    """The gate refused the step in the recorded run: the replay asks it again, as for the agent (a confirm
    level asks, or needs ``--approve``); refused again it did not happen, as recorded, and the replay goes
    on; allowed now it runs."""


class Step(_Model):
    """One action of the run."""

    action: str
    """A Kite action name (an unknown one is answered with the list): click, type, select, pressKey, navigate ..."""
    args: dict[str, Any] = Field(default_factory=dict)
    """The action's arguments as the model gives them, without ``index``: the target finds the element."""
    target: Fingerprint | None = None
    """The element it acts on, as the replay finds it again (a drag's start element); None for an action
    without one."""
    drop: Fingerprint | None = None
    """A drag's end element (dragDrop ``to``)."""
    expect: Expect | None = None
    intent: str = ""
    """What the step does in words (``click button "Add to cart"``): for people and for healing."""


class Answer(_Model):
    """The recorded run's answer and the passage of the page it was read from: the replay reads the passage
    again where the words around it are (``before`` and ``after``, on the same line of the page's text) and
    answers with it; the rest of ``text`` (the model's own words around the passage) is kept as written."""

    text: str
    """The answer as the recorded run gave it."""
    passage: str = ""
    """The part of ``text`` read from the page; empty when it was not found on the pages the run saw (the
    replay then asks a model for the answer alone, or fails: it never answers with nothing)."""
    before: str = ""
    """The text just before the passage on its line of the page."""
    after: str = ""
    """The text just after it."""


class Workflow(_Model):
    """A saved run, replayed with ``kite replay``."""

    version: Literal[1] = 1
    task: str = ""
    """The task of the run it was saved from."""
    start_url: str
    variables: dict[str, Variable] = Field(default_factory=dict)
    steps: list[Step] = Field(default_factory=list)
    answer: Answer | None = None
    """A question's answer and where it was read from (None: the run gave no answer)."""


def names_in(value: JsonValue) -> tuple[set[str], set[str]]:
    """The ``{variables}`` and the ``<secret>`` names used in a value (strings in any nesting)."""
    if isinstance(value, str):
        return set(VAR_RE.findall(value)), set(PLACEHOLDER_RE.findall(value))
    parts = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    vars_: set[str] = set()
    secrets: set[str] = set()
    for part in parts:
        v, s = names_in(part)
        vars_ |= v
        secrets |= s
    return vars_, secrets


@overload
def fill(value: str, values: dict[str, str]) -> str: ...
@overload
def fill(value: JsonObject, values: dict[str, str]) -> JsonObject: ...
@overload
def fill(value: JsonValue, values: dict[str, str]) -> JsonValue: ...
def fill(value: JsonValue, values: dict[str, str]) -> JsonValue:
    """``value`` with each ``{name}`` replaced by its value (names without one stay as written)."""
    if isinstance(value, str):
        return VAR_RE.sub(lambda m: values.get(m.group(1), m.group(0)), value)
    if isinstance(value, dict):
        return {k: fill(v, values) for k, v in value.items()}
    if isinstance(value, list):
        return [fill(v, values) for v in value]
    return value


def with_targets(step: Step, args: JsonObject, target: int | None, drop: int | None) -> JsonObject:
    """The action's JSON form: ``args`` with the elements found for the step's target (and a drag's drop
    element) as their indexes."""
    out: JsonObject = {**args, "action": step.action}
    if step.action == "dragDrop":
        if step.target is not None:
            out["from"] = {"index": target}
        if step.drop is not None:
            out["to"] = {"index": drop}
    elif step.target is not None:
        out["index"] = target
    return out


def _one_line(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "the file"
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"{where}: {err['msg']}{more}"


def check_steps(wf: Workflow, source: str) -> None:
    """Every step names a known action with arguments it takes, and every variable it uses is declared."""
    declared = {n for n, v in wf.variables.items() if not v.secret}
    secret = {n for n, v in wf.variables.items() if v.secret}
    for i, step in enumerate(wf.steps, 1):
        if step.action not in ACTION_NAMES:
            raise WorkflowUnknownActionError(
                f"{source}: step {i}: unknown action {step.action!r} (the actions: "
                f"{', '.join(sorted(ACTION_NAMES))})",
                step=i,
            )
        used, secrets = names_in([step.args, step.expect.value if step.expect else None])
        missing = sorted((used - declared) | (secrets - secret))
        if missing:
            raise WorkflowMissingVariableError(
                f"{source}: step {i} ({step.action}) uses {', '.join(missing)}, not declared under 'variables'",
                step=i,
            )
        probe = with_targets(step, fill(step.args, dict.fromkeys(used, "x")), 0, 0)
        try:
            parse_action(probe)
        except ValidationError as exc:
            raise WorkflowInvalidError(
                f"{source}: step {i} ({step.action}): {_one_line(exc)}", step=i
            ) from None


def parse_workflow(text: str, source: str = "<workflow>") -> Workflow:
    """A workflow from its YAML text; a typed one-line error for anything that cannot be used."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise WorkflowNotYamlError(
            f"{source} is not YAML{where}: {getattr(exc, 'problem', None) or exc}"
        ) from None
    if not isinstance(data, dict):
        raise WorkflowNotYamlError(
            f"{source} is not a workflow: expected a mapping, got {type(data).__name__}"
        )
    try:
        wf = Workflow.model_validate(data)
    except ValidationError as exc:
        raise WorkflowInvalidError(f"{source}: {_one_line(exc)}") from None
    check_steps(wf, source)
    return wf


def load_workflow(path: str | Path) -> Workflow:
    p = Path(path).expanduser()
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise WorkflowInvalidError(
            f"cannot read workflow {path}: {getattr(exc, 'strerror', None) or exc}"
        ) from None
    return parse_workflow(text, str(path))


class _Dumper(yaml.SafeDumper):
    """Safe YAML whose strings read back as written: a string with a character YAML reads as a line break
    (NEL, the line and paragraph separators) is written double-quoted, where it is escaped."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = '"' if any(c in value for c in "\x85\u2028\u2029") else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def dump_workflow(wf: Workflow) -> str:
    """The YAML text of ``wf``: defaults left out, keys in the models' order."""
    data = {"version": wf.version, **wf.model_dump(mode="json", exclude_defaults=True)}
    return HEADER + yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=110)


def save_file(wf: Workflow, path: str | Path) -> Path:
    p = Path(path).expanduser()
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(dump_workflow(wf), encoding="utf-8")
    return p


def workflow_schema() -> JsonObject:
    """The JSON schema of the workflow file."""
    schema = Workflow.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "Kite workflow"
    return schema
