"""Follow a suite task's ``solution`` plan: ``[{click: {name: "Add to cart"}}, {type: {name: "Email", text: "…"}}]``.

The plan's progress is replayed from the run's history (a plan step counts as done when an action of its kind
succeeded on an element its spec designates while it was the current step); the current step's element is
found by name/role among the elements the prompt lists. An element it cannot find is looked for as a person
would: a cookie banner over the page is closed first (its least-consenting button), the page is scrolled, then
the next page of a list in pages is opened; then it is reported as a failure:
``done(success=false, answer="oracle: …")`` — the oracle is a test of the pipeline. A step with
``optional: true`` is left out when its element is not on the page (scrolled for first).

``done`` takes ``answer`` or ``answer_from`` (a regular expression searched in what the history said, then
in the page; its first group is the answer) and ``data_rows: {pattern, limit}`` (structured data: one row
per match of a regular expression with named groups, typed by the output schema's item properties).
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import ValidationError

from kite_browser.agent.batch.tasks import SolutionStep, StepParams
from kite_browser.agent.browser.actions import (
    ACTION_MODELS,
    ActionModel,
    Click,
    Done,
    Scroll,
    Wait,
    offered_fields,
)
from kite_browser.agent.llm.model import PastAction
from kite_browser.evals.oracle.decision import fail
from kite_browser.evals.oracle.match import SPEC_KEYS, ElementSpec, describe, match_elements, pick
from kite_browser.evals.oracle.view import El, OracleView

MAX_STALLS = 8
"""Actions without progress (retries, scrolls, waits, a banner closed, a next page) before the oracle gives
up on a step."""
LEAST_CONSENT = re.compile(r"necessary|essential|reject|decline|refuse", re.I)
NEXT_PAGE = re.compile(r"next( page)?\W*", re.I)


def _step_parts(step: SolutionStep) -> tuple[str, StepParams]:
    if isinstance(step, str):
        return step, {}
    name, params = next(iter(step.items()))
    return name, dict(params or {})


def _spec(name: str, params: StepParams) -> ElementSpec:
    """The element spec of a plan step (``{}`` for a step without a target)."""
    if "in" in params:  # scroll inside an element
        return params["in"]
    fields = set(offered_fields(ACTION_MODELS[name])) - {"index", "selector"}
    return {
        k: v for k, v in params.items() if k not in fields and (k in SPEC_KEYS or k in ("selector", "x", "y"))
    }


def _counts(entry: PastAction, step: SolutionStep) -> bool:
    """Whether ``entry`` did plan step ``step``: its action, succeeded (or failed as expected), and on an
    element the step's spec designates (a banner closed or a page turned on the way is not the step)."""
    name, params = _step_parts(step)
    if entry.name != name or not (entry.ok or params.get("expect_error")):
        return False
    spec = _spec(name, params)
    if not spec or entry.element is None or (isinstance(spec, dict) and ("selector" in spec or "x" in spec)):
        return True
    return bool(match_elements([El.of(entry.element)], spec if isinstance(spec, dict) else {"name": spec}))


def progress(view: OracleView, plan: list[SolutionStep]) -> tuple[int, int]:
    """(index of the current plan step, actions since the last progress), replayed from the history."""
    ptr, stalls = 0, 0
    for entry in view.history:
        if ptr < len(plan):
            if _counts(entry, plan[ptr]):
                ptr, stalls = ptr + 1, 0
                continue
            optional = _step_parts(plan[ptr])[1].get("optional")
            if optional and ptr + 1 < len(plan) and _counts(entry, plan[ptr + 1]):
                ptr, stalls = ptr + 2, 0
                continue
        stalls += 1
    return ptr, stalls


def _target(view: OracleView, spec: ElementSpec) -> tuple[dict[str, Any] | None, str | None]:
    """``({"index": n}, None)`` or ``(None, why)``; selectors and coordinates pass through."""
    if isinstance(spec, dict) and ("selector" in spec or "x" in spec):
        return {k: spec[k] for k in ("selector", "x", "y") if k in spec}, None
    el = pick(view.elements, spec)
    if el is None:
        return None, f"no element matches {describe(spec)}"
    return {"index": el.index}, None


def _consent(view: OracleView) -> El | None:
    """The button of a cookie banner that consents least (none without a banner)."""
    buttons = [e for e in view.elements if e.role == "button" and "cookie" in e.label().casefold()]
    return next((e for e in buttons if LEAST_CONSENT.search(e.label())), buttons[0] if buttons else None)


def _next_page(view: OracleView) -> El | None:
    return next((e for e in view.elements if e.role == "link" and NEXT_PAGE.fullmatch(e.label())), None)


def _look_further(view: OracleView, stalls: int) -> ActionModel | None:
    """For an optional step's element: close a banner over the page, scroll down; None: it is not there."""
    banner = _consent(view)
    if banner is not None and stalls < MAX_STALLS:
        return Click(index=banner.index)
    if view.more_below and stalls < MAX_STALLS:
        return Scroll(direction="down")
    return None


def _missing(view: OracleView, why: str, stalls: int) -> ActionModel:
    """The target is not in the list: close a cookie banner over the page, scroll for it while there is more
    below, open the next page of a list in pages, then give up."""
    banner = _consent(view)
    if banner is not None and stalls < MAX_STALLS:
        return Click(index=banner.index)
    if stalls >= MAX_STALLS:
        return fail(f"{why} (after {stalls} tries) on {view.url}")
    if not view.elements and not view.more_below:  # nothing rendered yet (a slow page): give it a moment
        return Wait(ms=500)
    going_up = _scrolled_up(view)
    if view.more_below and not going_up:
        return Scroll(direction="down")
    turn = _next_page(view) if not going_up else None
    if turn is not None:
        return Click(index=turn.index)
    if view.more_above:  # scrolled past it (a section that moved up the page): back up, and on up
        return Scroll(direction="up")
    return fail(f"{why} on {view.url}")


def _scrolled_up(view: OracleView) -> bool:
    """The last action scrolled the page up (looking above: go on up, not down again)."""
    last = view.history[-1].action if view.history else {}
    return last.get("action") == "scroll" and last.get("direction") == "up"


def plan_action(view: OracleView, plan: list[SolutionStep]) -> ActionModel:
    """The next action of ``plan`` given the step's view."""
    ptr, stalls = progress(view, plan)
    return _step_action(view, plan, ptr, stalls)


def _step_action(view: OracleView, plan: list[SolutionStep], ptr: int, stalls: int) -> ActionModel:
    if ptr >= len(plan):
        return Done(success=True, answer="done")
    if stalls >= MAX_STALLS + 2:
        return fail(f"no progress on step {ptr} ({_step_parts(plan[ptr])[0]}) after {stalls} actions")
    name, params = _step_parts(plan[ptr])
    params.pop("expect_error", None)
    optional = params.pop("optional", False)
    fields = set(offered_fields(ACTION_MODELS[name])) - {"index", "selector"}
    out: dict[str, Any] = {"action": name}
    if name == "done":
        return _done(view, params)
    if name == "dragDrop":
        for end in ("from", "to"):
            target, why = _target(view, params[end])
            if target is None:
                return _missing(view, f"{end}: {why}", stalls)
            out[end] = target
        return _built(out, ptr)
    if name == "getElementDetails":
        indices = []
        for spec in params.get("targets", []):
            target, why = _target(view, spec)
            if target is None:
                return _missing(view, str(why), stalls)
            indices.append(target["index"])
        return _built({**out, "indices": indices or params.get("indices", [])}, ptr)
    if name == "uploadFile" and "file" in params:
        params["filePath"] = params.pop("file")
    spec = _spec(name, params)
    params.pop("in", None)
    out.update({k: v for k, v in params.items() if k in fields})
    if spec:
        target, why = _target(view, spec)
        if target is None and optional:
            return _look_further(view, stalls) or _step_action(view, plan, ptr + 1, 0)
        if target is None:
            return _missing(view, str(why), stalls)
        out.update(target)
    return _built(out, ptr)


def _built(out: dict[str, Any], ptr: int) -> ActionModel:
    """The registry's model of the action a plan step gives (a step its model refuses fails the task)."""
    try:
        return ACTION_MODELS[out["action"]].model_validate(out)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or out['action']}: {e['msg']}" for e in exc.errors()
        )
        return fail(f"step {ptr} ({out['action']}) is not a valid action: {problems}")


def _done(view: OracleView, params: StepParams) -> Done:
    answer = str(params.get("answer", ""))
    pattern = params.get("answer_from")
    if pattern:
        m = re.search(pattern, view.said, re.S) or re.search(pattern, view.page, re.S)
        if not m:
            return fail(f"answer_from /{pattern}/ found nothing in the history or on the page")
        answer = m.group(1) if m.groups() else m.group(0)
    success = bool(params.get("success", True))
    if "data_rows" not in params:
        return Done(success=success, answer=answer)
    rows = _rows(view, params["data_rows"])
    if not rows:
        return fail(
            f"data_rows /{params['data_rows']['pattern']}/ found nothing in the history or on the page"
        )
    joined = "; ".join(", ".join(str(v) for v in row.values()) for row in rows)
    return Done(success=success, answer=answer or joined, data=rows)


def _rows(view: OracleView, spec: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per match (said first, else the page), typed as the schema's item properties say."""
    pattern = spec["pattern"]
    found = [m.groupdict() for m in re.finditer(pattern, view.said)]
    found = found or [m.groupdict() for m in re.finditer(pattern, view.page)]
    items = (view.output_schema or {}).get("items") or {}
    props = items.get("properties") or {}
    typed = [{k: _typed(v, (props.get(k) or {}).get("type")) for k, v in row.items()} for row in found]
    return typed[: spec.get("limit") or len(typed)]


def _typed(value: str, kind: object) -> float | int | str:
    text = value.strip()
    if kind == "number":
        return float(text.replace(",", ""))
    if kind == "integer":
        return int(text.replace(",", ""))
    return text
