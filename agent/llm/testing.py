"""Models for tests (yours and Kite's): no network, no litellm, fully deterministic.

* ``FunctionModel(fn)`` answers each step with ``fn(messages, view)`` (sync or async). ``view`` is the step as
  structure (``agent.llm.model.ModelView``: task, step, observation, tools, history), so a test picks an
  element by name from ``view.observation.elements`` instead of parsing the prompt.
* ``ScriptedModel([...])`` replays fixed replies in order.

A reply is an ``LLMReply``, text (the model's content), a tool call ``{"name": "click", "arguments": {...}}``,
an action ``{"action": "click", "index": 3}``, or a list of calls/actions (several actions in one reply)::

from kite_browser.agent import Agent, load_config
    from kite_browser.agent.llm.testing import FunctionModel

    def fn(messages, view):
        button = next(e for e in view.observation.elements if e.name == "Add to cart")
        return {"action": "click", "index": button.index} if view.step == 1 else {"action": "done", "answer": "ok"}

    result = await Agent(load_config(), model=FunctionModel(fn)).run("Add a mug", start_url=url)

A test model is named ``kite/...`` (capabilities: function calling, no vision), so ``view.tools`` holds the
tool definitions and the replies are tool calls. ``register_model("kite/mine", model)`` makes a model
reachable by name (e.g. ``kite batch --model kite/mine`` in a test's subprocess).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Sequence

from kite_browser.agent.base.jsontypes import JsonObject, JsonValue
from kite_browser.agent.llm.chat import ChatMessage, ChatTool
from kite_browser.agent.llm.client import LLMReply, ToolCall, Usage
from kite_browser.agent.llm.model import ModelView
from kite_browser.agent.llm.own_models import register_model, unregister_model

Reply = LLMReply | str | JsonObject | list[JsonObject]
ModelFunction = Callable[[list[ChatMessage], ModelView], Reply | Awaitable[Reply]]

__all__ = [
    "FunctionModel",
    "ModelFunction",
    "Reply",
    "ScriptedModel",
    "register_model",
    "to_reply",
    "unregister_model",
]


def _call(item: JsonObject, n: int) -> ToolCall:
    if "action" in item and "name" not in item:
        args: JsonValue = {k: v for k, v in item.items() if k != "action"}
        name = str(item["action"])
    else:
        args, name = item.get("arguments") or {}, str(item.get("name", ""))
    text = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
    return ToolCall(id=str(item.get("id") or f"call_{n}"), name=name, arguments=text)


def _estimate(value: object) -> int:
    return max(1, len(json.dumps(value, default=str)) // 4)


def to_reply(reply: Reply, messages: list[ChatMessage], name: str) -> LLMReply:
    """Every accepted reply form → an ``LLMReply`` (usage: about 4 characters a token of what was sent)."""
    if isinstance(reply, LLMReply):
        return reply
    if isinstance(reply, str):
        calls: list[ToolCall] = []
        content: str | None = reply
    elif isinstance(reply, dict):
        calls, content = [_call(reply, 0)], None
    elif isinstance(reply, list) and all(isinstance(r, dict) for r in reply):
        calls, content = [_call(r, i) for i, r in enumerate(reply)], None
    else:
        raise TypeError(f"a test model returns an LLMReply, text or action dicts, not {type(reply).__name__}")
    out = _estimate([content, [c.model_dump() for c in calls]]) if (content or calls) else 0
    return LLMReply(
        content=content,
        tool_calls=calls,
        usage=Usage(prompt_tokens=_estimate(messages), completion_tokens=out),
        finish_reason="tool_calls" if calls else "stop",
        model=name,
    )


class FunctionModel:
    """A model whose every answer is ``fn(messages, view)``; ``views`` keeps what each call received."""

    def __init__(self, fn: ModelFunction, *, name: str = "kite/function") -> None:
        self.fn, self.name = fn, name
        self.views: list[ModelView] = []
        self.messages: list[list[ChatMessage]] = []

    async def complete(
        self,
        messages: list[ChatMessage],
        tools: list[ChatTool] | None = None,
        *,
        view: ModelView | None = None,
    ) -> LLMReply:
        if view is None:
            raise TypeError(f"{self.name} needs the step's view (the planner loop always passes one)")
        self.views.append(view)
        self.messages.append(messages)
        out = self.fn(messages, view)
        if inspect.isawaitable(out):
            out = await out
        return to_reply(out, messages, self.name)


class ScriptedModel(FunctionModel):
    """Replays ``replies`` in order; after the last one it answers ``done(success=false)``."""

    def __init__(self, replies: Sequence[Reply], *, name: str = "kite/scripted-model") -> None:
        self.replies, self.position = list(replies), 0
        super().__init__(self._next, name=name)

    async def complete(
        self,
        messages: list[ChatMessage],
        tools: list[ChatTool] | None = None,
        *,
        view: ModelView | None = None,
    ) -> LLMReply:
        if view is not None:
            self.views.append(view)
        self.messages.append(messages)
        return to_reply(self._next(messages, view), messages, self.name)

    @property
    def remaining(self) -> int:
        return len(self.replies) - self.position

    def _next(self, messages: list[ChatMessage], view: ModelView | None) -> Reply:
        if self.position >= len(self.replies):
            return {"action": "done", "success": False, "answer": "the script has no reply left"}
        self.position += 1
        return self.replies[self.position - 1]
