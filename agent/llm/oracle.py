"""``kite/oracle``: a deterministic model that solves tasks it has a plan for, through the whole real pipeline.

* Suite tasks carry a ``solution`` plan (``[{click: {name: "Add to cart"}}, {type: {name: "Email", text: "…"}}]``);
  ``register_plans`` makes them known, keyed by the task text.
* MiniWoB++ task types it knows (``agent/llm/oracle_miniwob.py``) are solved from the utterance and the page.

Each turn the oracle reads *only its prompt*: it replays the history shown there to find how far the plan
got (a plan step counts as done when an action of its kind succeeded while it was the current step), finds
the current step's element by name/role in the rendered element list, and answers with one tool call by
index (or a fenced JSON block when no tools were sent). An element it cannot find is scrolled for, then
reported as a failure: ``done(success=false, answer="oracle: …")`` — the oracle is a test of the pipeline.
"""

from __future__ import annotations

import json
import re
from typing import Any

from agent.browser.actions import ACTION_MODELS
from agent.llm.oracle_match import SPEC_KEYS, describe, pick
from agent.llm.oracle_prompt import PromptView, parse_prompt

MODEL_NAME = "oracle"
MAX_STALLS = 4
"""Actions without progress (retries, scrolls, waits) before the oracle gives up on a step."""

_PLANS: dict[str, list[Any]] = {}


def register_plans(plans: dict[str, list[Any]]) -> None:
    """Make solution plans known, keyed by the exact task text."""
    _PLANS.update({task.strip(): list(steps) for task, steps in plans.items()})


def clear_plans() -> None:
    _PLANS.clear()


def _step_parts(step: Any) -> tuple[str, dict[str, Any]]:
    if isinstance(step, str):
        return step, {}
    name, params = next(iter(step.items()))
    return name, dict(params or {})


def progress(view: PromptView, plan: list[Any]) -> tuple[int, int]:
    """(index of the current plan step, actions since the last progress), replayed from the prompt's history."""
    ptr, stalls = 0, 0
    for entry in view.history:
        if ptr < len(plan):
            name, params = _step_parts(plan[ptr])
            if entry.action == name and (entry.ok or params.get("expect_error")):
                ptr, stalls = ptr + 1, 0
                continue
        stalls += 1
    return ptr, stalls


def _fail(message: str) -> dict[str, Any]:
    return {"action": "done", "success": False, "answer": f"oracle: {message}"}


def _target(view: PromptView, spec: Any) -> tuple[dict[str, Any] | None, str | None]:
    """``({"index": n}, None)`` or ``(None, why)``; selectors and coordinates pass through."""
    if isinstance(spec, dict) and ("selector" in spec or "x" in spec):
        return {k: spec[k] for k in ("selector", "x", "y") if k in spec}, None
    el = pick(view.elements, spec)
    if el is None:
        return None, f"no element matches {describe(spec)}"
    return {"index": el.index}, None


def _missing(view: PromptView, why: str, stalls: int) -> dict[str, Any]:
    """The target is not in the list: scroll for it while there is more below, then give up."""
    if stalls >= MAX_STALLS:
        return _fail(f"{why} (after {stalls} tries) on {view.url}")
    if view.more_below:
        return {"action": "scroll", "direction": "down"}
    return _fail(f"{why} on {view.url}")


def plan_action(view: PromptView, plan: list[Any]) -> dict[str, Any]:
    """The next action of ``plan`` given the prompt."""
    ptr, stalls = progress(view, plan)
    if ptr >= len(plan):
        return {"action": "done", "success": True, "answer": "done"}
    if stalls >= MAX_STALLS + 2:
        return _fail(f"no progress on step {ptr} ({_step_parts(plan[ptr])[0]}) after {stalls} actions")
    name, params = _step_parts(plan[ptr])
    params.pop("expect_error", None)
    fields = {f.alias or k for k, f in ACTION_MODELS[name].model_fields.items()} - {
        "action",
        "index",
        "selector",
    }
    out: dict[str, Any] = {"action": name}
    if name == "done":
        return _done(view, params)
    if name == "dragDrop":
        for end in ("from", "to"):
            target, why = _target(view, params.get(end))
            if target is None:
                return _missing(view, f"{end}: {why}", stalls)
            out[end] = target
        return out
    if name == "getElementDetails":
        indices = []
        for spec in params.get("targets", []):
            target, why = _target(view, spec)
            if target is None:
                return _missing(view, str(why), stalls)
            indices.append(target["index"])
        return {**out, "indices": indices or params.get("indices", [])}
    if name == "uploadFile" and "file" in params:
        params["filePath"] = params.pop("file")
    spec = {
        k: v for k, v in params.items() if k not in fields and (k in SPEC_KEYS or k in ("selector", "x", "y"))
    }
    if "in" in params:  # scroll inside an element
        spec = params.pop("in")
    out.update({k: v for k, v in params.items() if k in fields})
    if spec:
        target, why = _target(view, spec)
        if target is None:
            return _missing(view, str(why), stalls)
        out.update(target)
    return out


def _done(view: PromptView, params: dict[str, Any]) -> dict[str, Any]:
    answer = str(params.get("answer", ""))
    pattern = params.get("answer_from")
    if pattern:
        m = re.search(pattern, view.head, re.S) or re.search(pattern, view.page, re.S)
        if not m:
            return _fail(f"answer_from /{pattern}/ found nothing in the prompt")
        answer = m.group(1) if m.groups() else m.group(0)
    return {"action": "done", "success": bool(params.get("success", True)), "answer": answer}


def decide(view: PromptView) -> dict[str, Any] | list[dict[str, Any]]:
    plan = _PLANS.get(view.task)
    if plan is not None:
        return plan_action(view, plan)
    from agent.llm.oracle_miniwob import solve_miniwob

    action = solve_miniwob(view)
    if action is not None:
        return action
    return _fail("no solution plan for this task and not a MiniWoB task type the oracle knows")


def to_reply_parts(
    actions: dict[str, Any] | list[dict[str, Any]], tools: list[dict[str, Any]] | None
) -> tuple[str | None, list[dict[str, Any]]]:
    """(content, tool_calls): tool calls when tools were sent, else one fenced JSON block."""
    items = actions if isinstance(actions, list) else [actions]
    names = [t.get("function", {}).get("name") for t in tools or []]
    if not names:
        block = items[0] if len(items) == 1 else items
        return f"Next step.\n```json\n{json.dumps(block, ensure_ascii=False)}\n```", []
    calls = []
    for action in items:
        name = action["action"]
        params = {k: v for k, v in action.items() if k != "action"}
        if name in names:
            calls.append({"name": name, "arguments": params})
        else:
            calls.append({"name": "browser_action", "arguments": {"action": name, "params": params}})
    return None, calls


def handle(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, kwargs: dict[str, Any]) -> Any:
    """The fake model's handler (see ``agent/llm/fakes.py``)."""
    from agent.llm.fakes import FakeReply

    content, calls = to_reply_parts(decide(parse_prompt(messages)), tools)
    return FakeReply(content=content, tool_calls=calls or None)


def register() -> str:
    """Register ``kite/oracle`` with litellm (idempotent); returns the model string."""
    from agent.llm.fakes import register_fake

    register_fake(MODEL_NAME, handle)
    return f"kite/{MODEL_NAME}"
