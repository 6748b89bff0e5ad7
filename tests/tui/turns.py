"""A fake model for TUI tests: each turn is a list of actions named by element, picked from the view.

Registered as ``kite/turns`` (a ``FunctionModel``); several actions per turn keep the runs short (e.g. type
every checkout field in one reply). After the last turn it answers ``done(success=False, "plan exhausted")``.
"""

from __future__ import annotations

from typing import Any

from kite_browser.agent.llm.model import ModelView
from kite_browser.agent.llm.own_models import register_model
from kite_browser.agent.llm.testing import FunctionModel, Reply
from tests.agent.plan_model import find_index, prompt_text

Step = tuple[str, str | None, dict[str, Any]]


class TurnsModel(FunctionModel):
    def __init__(self, turns: list[list[Step]]) -> None:
        super().__init__(self._answer, name="kite/turns")
        self.turns, self.position = turns, 0
        self.prompts: list[str] = []

    def _answer(self, messages: list[dict[str, Any]], view: ModelView) -> Reply:
        self.prompts.append(prompt_text(messages))
        if self.position >= len(self.turns):
            return [_call("done", {"success": False, "answer": "plan exhausted"})]
        turn = self.turns[self.position]
        self.position += 1
        calls = []
        for action, name, params in turn:
            args = dict(params)
            if name is not None:
                index = find_index(view, name, exact=True) or find_index(view, name)
                if index is None:
                    return f"I cannot find {name!r} on the page."
                args["index"] = index
            calls.append(_call(action, args))
        return calls


def _call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def install(turns: list[list[Step]]) -> TurnsModel:
    model = TurnsModel(turns)
    register_model("kite/turns", model)
    return model
