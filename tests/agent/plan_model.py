"""A fake model for loop tests that follows a plan by element *name*, picked from the structured view.

It is a ``FunctionModel`` registered as ``kite/plan``. Each plan step is ``(action, name_or_None, params)``;
the index is the first element in the viewport whose name (or placeholder, value, href) contains ``name``,
so if the snapshot loses an element, the test fails.
"""

from __future__ import annotations

import json
from typing import Any

from kite_browser.agent.browser.observation import Element
from kite_browser.agent.llm.model import ModelView
from kite_browser.agent.llm.own_models import register_model
from kite_browser.agent.llm.testing import FunctionModel, Reply


def prompt_text(messages: list[dict[str, Any]]) -> str:
    parts = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):
            parts.extend(p.get("text", "") for p in content if isinstance(p, dict))
        elif isinstance(content, str):
            parts.append(content)
    return "\n".join(parts)


def _words(el: Element) -> list[str]:
    return [w.lower() for w in (el.name, el.placeholder, el.value, el.href) if w]


def find_index(view: ModelView, name: str, *, exact: bool = False) -> int | None:
    """The index of the first listed element whose name (exactly) or attributes (contain) ``name``."""
    want = name.lower()
    for el in view.observation.elements:
        if not el.in_viewport:
            continue
        if (el.name.lower() == want) if exact else any(want in w for w in _words(el)):
            return el.index
    return None


class PlanModel(FunctionModel):
    def __init__(
        self, plan: list[tuple[str, str | None, dict[str, Any]]], *, json_mode: bool = False
    ) -> None:
        super().__init__(self._answer, name="kite/plan")
        self.plan, self.json_mode, self.position = plan, json_mode, 0
        self.received: list[dict[str, Any]] = []

    def _answer(self, messages: list[dict[str, Any]], view: ModelView) -> Reply:
        self.received.append({"messages": messages, "tools": view.tools})
        if self.position >= len(self.plan):
            action, name, params = "done", None, {"success": False, "answer": "plan exhausted"}
        else:
            action, name, params = self.plan[self.position]
            self.position += 1
        args = dict(params)
        if name is not None:
            index = find_index(view, name)
            if index is None:
                return f"I cannot find {name!r} on the page."
            args["index"] = index
        if self.json_mode:
            body = json.dumps({"action": action, **args})
            return f"Next I {action}.\n```json\n{body}\n```"
        return {"name": action, "arguments": args}


def install(plan: list[tuple[str, str | None, dict[str, Any]]], *, json_mode: bool = False) -> PlanModel:
    model = PlanModel(plan, json_mode=json_mode)
    register_model("kite/plan", model)
    return model
