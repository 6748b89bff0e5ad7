"""A workflow from a run record (``runs/<run>/run.json`` and ``steps.jsonl``): the actions that ran, each with
its target's fingerprint (kept by ``BrowserEnv.act``) and its verified effect.

Left out: actions that failed, read-only ones (getElements, screenshot ...) and ``done``. An action the gate
refused is kept with ``expect.refused``: the replay asks the gate again (agent/workflow/replay.py).
The text typed into a field becomes a variable named after the field, its value the default; a secret stays
a ``<secret>name</secret>`` placeholder (the record holds no secret's value) and is declared by name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypedDict, cast
from urllib.parse import quote, quote_plus, urlsplit

from kite_browser.agent.base.fence import TAG
from kite_browser.agent.base.jsontypes import JsonObject, JsonValue
from kite_browser.agent.browser.actions import OBSERVE_ONLY
from kite_browser.agent.browser.fingerprint import element_index
from kite_browser.agent.browser.observation import ActionResult, Fingerprint
from kite_browser.agent.run.record import StoredRequest, load_request
from kite_browser.agent.workflow.answer import source_of
from kite_browser.agent.workflow.errors import RunNotSavableError
from kite_browser.agent.workflow.model import Answer, Expect, Step, Variable, Workflow
from kite_browser.safety.secrets import PLACEHOLDER_RE

SKIPPED = OBSERVE_ONLY | {"done"}
PAGE_RE = re.compile(rf"<{TAG}>(.*?)</{TAG}>", re.S)


class RecordedAction(TypedDict, total=False):
    """One action of a step record's line (``agent.step_record.ActionOutcome`` as JSON): what is read of it."""

    action: JsonObject
    result: JsonObject


class StepLine(TypedDict, total=False):
    """One line of a run's ``steps.jsonl`` (``agent.step_record.StepRecord`` as JSON): what is read of it."""

    step: int
    url: str | None
    thought: str | None
    actions: list[RecordedAction]
    reply: JsonValue
    request: JsonObject


class SessionLine(TypedDict, total=False):
    """One line of a ``kite mcp`` session's ``record.jsonl``: what is read of its ``action`` lines."""

    event: str
    client: str
    action: JsonObject
    result: JsonObject


"""Page content in a message to the model (the page, a read's text, a script's result)."""


def _slug(text: str) -> str:
    slug = re.sub(r"[^0-9a-z]+", "_", text.lower()).strip("_")[:30].strip("_")
    return f"v_{slug}" if slug[:1].isdigit() else slug or "text"


def path_of(url: str) -> str:
    """The path and query of ``url`` (what a step's expected URL compares; the origin is left out)."""
    parts = urlsplit(url)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def _url_pattern(url: str, values: dict[str, str]) -> str:
    """The path and query of ``url`` as a pattern: ``[`` ``]`` ``*`` ``?`` escaped, each variable's value
    (as a URL writes it) and each run of 3 digits or more a ``*``, so the check holds when the replay types
    another value or the site numbers something anew."""
    pattern = re.sub(r"([\[\]*?])", r"[\1]", path_of(url))
    pattern = re.sub(
        r"\d{3,}", "*", pattern
    )  # a generated number (an order's, a session's) differs next time
    for value in sorted({v for v in values.values() if v}, key=len, reverse=True):
        for written in {quote_plus(value), quote(value)}:
            pattern = pattern.replace(written, "*")
    return pattern


def _what(target: Fingerprint) -> str:
    return f'{target.role or target.tag} "{target.name or target.label}"'


def describe(
    action: str, args: Mapping[str, object], target: Fingerprint | None, drop: Fingerprint | None = None
) -> str:
    """``click button "Add to cart"``, ``type "{search}" into input "Search"``: the step in words."""
    if action == "dragDrop":
        start = _what(target) if target is not None else f"the point {args.get('from')}"
        end = _what(drop) if drop is not None else f"the point {args.get('to')}"
        return f"drag {start} onto {end}"
    if target is None:
        shown = ", ".join(f"{k}={v}" for k, v in args.items())
        return f"{action} {shown}".strip()
    what = _what(target)
    if action == "type":
        return f'type "{args.get("text", "")}" into {what}'
    if action == "select":
        return f'select "{args.get("value", "")}" in {what}'
    return f"{action} {what}"


class _Builder:
    """The steps and variables of one run, built record line by record line."""

    def __init__(self) -> None:
        self.steps: list[Step] = []
        self.variables: dict[str, Variable] = {}
        self.values: dict[str, str] = {}

    def variable(self, text: str, target: Fingerprint | None) -> str:
        """The text typed, as a reference to a variable (a new one unless the same value was seen)."""
        for name, value in self.values.items():
            if value == text:
                return "{" + name + "}"
        base = _slug(target.label or target.name or target.attrs.get("name", "")) if target else "text"
        name, n = base, 2
        while name in self.variables:
            name, n = f"{base}_{n}", n + 1
        self.variables[name] = Variable(default=text)
        self.values[name] = text
        return "{" + name + "}"

    def add(self, where: str, action: dict[str, Any], result: ActionResult) -> None:
        name = str(action.get("action"))
        on_element = element_index(action) is not None
        args = {k: v for k, v in action.items() if k != "action" and not (on_element and k == "index")}
        drop = None
        if name == "dragDrop":  # an end on an element is found by its fingerprint, an end at a point kept
            on_element = _drag_end(args, "from")
            drop = result.drop if _drag_end(args, "to") else None
            if _drag_end(args, "to") and drop is None:
                raise RunNotSavableError(f"{where}: the record has no fingerprint of the element dropped on")
        target = result.target if on_element else None
        if on_element and target is None:
            raise RunNotSavableError(
                f"{where}: the record has no fingerprint of the element {name} acted on (recorded before "
                "Kite kept them): run the task again to save it"
            )
        for secret in PLACEHOLDER_RE.findall(json.dumps(args)):
            self.variables.setdefault(secret, Variable(secret=True))
        expect = Expect()
        if name == "type" and isinstance(args.get("text"), str) and not PLACEHOLDER_RE.search(args["text"]):
            typed = args["text"]
            args["text"] = self.variable(typed, target)
            if result.effects.value == typed:
                expect.value = args["text"]
        eff = result.effects
        if eff.navigated and eff.url_after:
            expect.url = _url_pattern(eff.url_after, self.values)
        expect.new_tab = bool(eff.new_tabs)
        if result.error is not None and result.error.error in ("declined", "blocked"):
            expect.refused = result.error.error  # type: ignore[assignment]
        self.steps.append(
            Step(
                action=name,
                args=args,
                target=target,
                drop=drop,
                expect=expect if expect != Expect() else None,
                intent=describe(name, args, target, drop),
            )
        )


def _drag_end(args: dict[str, object], end: str) -> bool:
    """A drag's ``end`` is an element: its index is taken out of ``args`` (the fingerprint finds it)."""
    point = args.get(end)
    if isinstance(point, int) and not isinstance(point, bool):
        point = {"index": point}
    if isinstance(point, dict) and "index" in point:
        del args[end]
        return True
    return False


def _lines(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RunNotSavableError(f"cannot read {path}: {exc.strerror or exc}") from None
    return [line for line in text.splitlines() if line.strip()]


def step_lines(path: Path) -> list[StepLine]:
    """The lines of a run's ``steps.jsonl``."""
    return [json.loads(line) for line in _lines(path)]


def _session_lines(path: Path) -> list[SessionLine]:
    return [json.loads(line) for line in _lines(path)]


def _built(root: Path, run_dir: str | Path) -> tuple[_Builder, str | None]:
    """The steps and variables of the run record at ``root``, and the start URL its step 0 opened."""
    start_url = None
    builder = _Builder()
    for line in step_lines(root / "steps.jsonl"):
        for n, item in enumerate(line.get("actions") or [], 1):
            action, res = item.get("action") or {}, ActionResult.model_validate(item["result"])
            if line.get("step") == 0:
                url = action.get("url")
                start_url = start_url or (url if isinstance(url, str) else None)
                continue
            if action.get("action") in SKIPPED or not (res.ok or _refused(action, res)):
                continue  # a failed action did not happen: what ran instead is the path
            builder.add(f"{run_dir}: step {line.get('step')}, action {n}", action, res)
    return builder, start_url


def _refused(action: dict[str, Any], result: ActionResult) -> bool:
    """The gate refused the action: it is kept, to be asked again on replay (one on an element recorded
    before Kite took a refused target's fingerprint is left out)."""
    err = result.error
    if err is None or err.error not in ("declined", "blocked"):
        return False
    return result.target is not None or element_index(action) is None


def _texts(content: object) -> list[str]:
    """The text of a message's content (a string, or parts of which some are text)."""
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)]
    return []


def answer_of(root: Path, answer: str, task: str = "") -> Answer | None:
    """``answer`` and where the run read it: the page text and the results the model was shown when it gave
    it (the last request of the record); None for a run with no answer."""
    if not answer.strip():
        return None
    request = None
    for line in step_lines(root / "steps.jsonl"):
        request = line.get("request") or request
    if request is None:
        return Answer(text=answer)
    try:
        messages, _ = load_request(root, cast(StoredRequest, request))
    except (OSError, ValueError):
        return Answer(text=answer)
    texts = [t for m in messages if m.get("role") != "system" for t in _texts(m.get("content"))]
    pages = [p for t in texts for p in PAGE_RE.findall(t)]  # what the pages showed, not Kite's own notes
    return source_of(answer, pages or texts, task=task)


def _with_variables(answer: Answer, values: dict[str, str]) -> Answer:
    """``answer`` with each variable's recorded value written ``{name}``: a replay with another value reads
    the answer about that one."""
    fields = {"text": answer.text, "passage": answer.passage, "before": answer.before, "after": answer.after}
    for name, value in sorted(values.items(), key=lambda kv: len(kv[1]), reverse=True):
        if len(value) >= 2:
            fields = {k: v.replace(value, "{" + name + "}") for k, v in fields.items()}
    return Answer(**fields)


def steps_of_run(run_dir: str | Path) -> tuple[list[Step], dict[str, Variable]]:
    """The steps (and the variables they use) of any run record, finished or not: what a model did for a
    replay (agent/workflow/heal.py), to be put into the workflow."""
    builder, _ = _built(Path(run_dir), run_dir)
    return builder.steps, builder.variables


def workflow_from_mcp(record_dir: str | Path, *, client: str | None = None, task: str = "") -> Workflow:
    """The workflow of a ``kite mcp`` session's page actions (its record's ``action`` lines, one client's):
    the first ``navigate`` is the start URL, the actions after it are the steps."""
    root = Path(record_dir).expanduser()
    lines = [x for x in _session_lines(root / "record.jsonl") if x.get("event") == "action"]
    clients = sorted({str(x.get("client")) for x in lines})
    if client is None and len(clients) > 1:
        raise RunNotSavableError(
            f"{record_dir}: actions of {len(clients)} clients ({', '.join(clients)}): name one"
        )
    lines = [x for x in lines if client is None or x.get("client") == client]
    start = next((i for i, x in enumerate(lines) if x["action"].get("action") == "navigate"), None)
    if start is None:
        raise RunNotSavableError(f"{record_dir}: the session opened no page with navigate")
    builder = _Builder()
    for n, line in enumerate(lines[start + 1 :], start + 2):
        action, res = dict(line["action"]), ActionResult.model_validate(line["result"])
        if action.get("action") not in SKIPPED and res.ok:
            builder.add(f"{record_dir}: action {n}", action, res)
    if not builder.steps:
        raise RunNotSavableError(f"{record_dir}: the session did no action to replay after navigate")
    start_url = str(lines[start]["action"]["url"])
    return Workflow(task=task, start_url=start_url, variables=builder.variables, steps=builder.steps)


def workflow_from_run(run_dir: str | Path, *, require_success: bool = True) -> Workflow:
    """The workflow of a recorded run (``require_success``: refuse a run that did not succeed)."""
    root = Path(run_dir).expanduser()
    if not (root / "run.json").is_file():
        raise RunNotSavableError(f"{run_dir} is not a run record (no run.json): give a folder under runs/")
    run = json.loads((root / "run.json").read_text(encoding="utf-8"))
    result = run.get("result") or {}
    if require_success and not result.get("success"):
        why = result.get("stop_reason") or "it has not finished"
        raise RunNotSavableError(
            f"{run_dir}: the run did not succeed ({why}); only a successful run is saved"
        )
    builder, opened = _built(root, run_dir)
    start_url = run.get("start_url") or opened
    if not start_url:
        raise RunNotSavableError(f"{run_dir}: the run had no start URL")
    if not builder.steps:
        raise RunNotSavableError(f"{run_dir}: the run did no action to replay")
    answer = answer_of(root, str(result.get("answer") or ""), run.get("task") or "")
    return Workflow(
        task=run.get("task") or "",
        start_url=start_url,
        variables=builder.variables,
        steps=builder.steps,
        answer=_with_variables(answer, builder.values) if answer is not None else None,
    )
