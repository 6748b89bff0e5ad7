"""A fake model for TUI tests: each turn is a list of actions named by element, resolved from the prompt.

Registered with litellm as ``kite/turns``; several actions per turn keep the runs short (e.g. type every
checkout field in one reply). After the last turn it answers ``done(success=False, "plan exhausted")``.
"""

from __future__ import annotations

from typing import Any

from agent.llm.fakes import FakeReply, register_fake
from tests.agent.plan_model import LINE, find_index, prompt_text

Step = tuple[str, str | None, dict[str, Any]]


class TurnsModel:
    def __init__(self, turns: list[list[Step]]) -> None:
        self.turns, self.position = turns, 0
        self.prompts: list[str] = []

    def __call__(self, messages: list[dict], tools: list[dict] | None, kwargs: dict) -> FakeReply:
        text = prompt_text(messages)
        self.prompts.append(text)
        if self.position >= len(self.turns):
            return FakeReply(tool_calls=[_call("done", {"success": False, "answer": "plan exhausted"})])
        turn = self.turns[self.position]
        self.position += 1
        calls = []
        for action, name, params in turn:
            args = dict(params)
            if name is not None:
                index = exact_index(text, name) or find_index(text, name)
                if index is None:
                    return FakeReply(content=f"I cannot find {name!r} on the page.")
                args["index"] = index
            calls.append(_call(action, args))
        return FakeReply(tool_calls=calls)


def exact_index(text: str, name: str) -> int | None:
    """The index of the first element whose name is exactly ``name`` (case-insensitive)."""
    for line in text.splitlines():
        m = LINE.match(line.strip())
        if m and (m.group(3) or "").lower() == name.lower():
            return int(m.group(1))
    return None


def _call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def install(turns: list[list[Step]]) -> TurnsModel:
    model = TurnsModel(turns)
    register_fake("turns", model)
    return model
