"""A fake model for loop tests that follows a plan by element *name*, reading indexes from its prompt.

It runs through the real litellm path (registered as ``kite/plan``). Each plan step is
``(action, name_or_None, params)``; the index is looked up in the element list rendered in the prompt, so
if the snapshot or the prompt loses an element, the test fails.
"""

from __future__ import annotations

import json
import re
from typing import Any

from agent.llm.fakes import FakeReply, register_fake

LINE = re.compile(r'^\*?\[(\d+)\]\s+(\S+)(?:\s+"((?:[^"\\]|\\.)*)")?(.*)$')


def prompt_text(messages: list[dict[str, Any]]) -> str:
    parts = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):
            parts.extend(p.get("text", "") for p in content if isinstance(p, dict))
        elif isinstance(content, str):
            parts.append(content)
    return "\n".join(parts)


def find_index(text: str, name: str) -> int | None:
    """The index of the first element whose name (or attributes) contains ``name``."""
    for line in text.splitlines():
        m = LINE.match(line.strip())
        if m and (name.lower() in (m.group(3) or "").lower() or name.lower() in m.group(4).lower()):
            return int(m.group(1))
    return None


class PlanModel:
    def __init__(
        self, plan: list[tuple[str, str | None, dict[str, Any]]], *, json_mode: bool = False
    ) -> None:
        self.plan, self.json_mode, self.position = plan, json_mode, 0
        self.received: list[dict[str, Any]] = []

    def __call__(self, messages: list[dict], tools: list[dict] | None, kwargs: dict) -> FakeReply:
        self.received.append({"messages": messages, "tools": tools})
        if self.position >= len(self.plan):
            action, name, params = "done", None, {"success": False, "answer": "plan exhausted"}
        else:
            action, name, params = self.plan[self.position]
            self.position += 1
        args = dict(params)
        if name is not None:
            index = find_index(prompt_text(messages), name)
            if index is None:
                return FakeReply(content=f"I cannot find {name!r} on the page.")
            args["index"] = index
        if self.json_mode:
            body = json.dumps({"action": action, **args})
            return FakeReply(content=f"Next I {action}.\n```json\n{body}\n```")
        return FakeReply(tool_calls=[{"name": action, "arguments": args}])


def install(plan: list[tuple[str, str | None, dict[str, Any]]], *, json_mode: bool = False) -> PlanModel:
    model = PlanModel(plan, json_mode=json_mode)
    register_fake("plan", model)
    return model
