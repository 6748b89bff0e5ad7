"""Module tools in the planner loop: ``agent.module_tools: [run_javascript]`` and ``Agent(config, tools=[fn])``.

The listed tools (and the user's own functions) are offered to a function-calling model next to the browser
actions. A reply's calls to them are taken out before the actions are parsed, run through the Toolbox (the
same argument validation and safety gate, with the agent's confirmer) and reported back to the model and into
the step record like actions.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, Self, TypeVar

from kite_browser.agent.config import KiteConfig
from kite_browser.agent.events import ActionFinished, EventSink, emit
from kite_browser.agent.fence import defuse
from kite_browser.agent.modules.base import is_error
from kite_browser.agent.modules.toolbox import Toolbox
from kite_browser.safety.confirm import Confirmer

log = logging.getLogger("kite.modules")
RESULT_CHARS = 600


class ToolCallText(Protocol):
    """A model's call of a tool: its name and its arguments as JSON text (``agent.llm.client.ToolCall``)."""

    @property
    def name(self) -> str: ...

    @property
    def arguments(self) -> str: ...


class ReplyWithCalls(Protocol):
    """A model's reply and its tool calls (``agent.llm.client.LLMReply``)."""

    @property
    def tool_calls(self) -> Sequence[ToolCallText]: ...

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self: ...


class OffersTools(Protocol):
    """Where the tool definitions sent to the model are kept (``agent.model_setup.ModelSetup``); None when
    the model gets none (no function calling)."""

    tools: list[dict[str, Any]] | None


Reply = TypeVar("Reply", bound=ReplyWithCalls)


class PlannerTools:
    def __init__(
        self, config: KiteConfig, confirmer: Confirmer | None, functions: Sequence[Callable[..., Any]] = ()
    ) -> None:
        self.wanted = list(config.agent.module_tools)
        self.toolbox: Toolbox | None = None
        if self.wanted or functions:
            self.toolbox = Toolbox(config, confirmer=confirmer, tools=functions, handle_signals=False)
        self.names: set[str] = set()

    async def start(self, setup: OffersTools | None = None) -> list[str]:
        """Load the modules and add the offered tools to ``setup.tools`` (a ``ModelSetup``; function-calling
        models only); returns warnings (listed tools that no enabled module offers)."""
        if self.toolbox is None:
            return []
        await self.toolbox.start()
        registry = self.toolbox.registry
        user = registry.state("user_tools")
        self.names = {t for t in self.wanted if registry.owner(t)} | set(user.tools if user else [])
        if setup is not None and setup.tools is not None and self.names:
            setup.tools = [*setup.tools, *self.definitions()]
        return [
            f"agent.module_tools: no enabled module offers {t!r}" for t in self.wanted if t not in self.names
        ]

    def definitions(self) -> list[dict[str, Any]]:
        return self.toolbox.tool_definitions(self.names) if self.toolbox is not None else []

    def split(self, reply: Reply) -> tuple[list[ToolCallText], Reply]:
        """The reply's calls to module tools, and the reply (an ``LLMReply``) without them for the action
        parser."""
        if not self.names:
            return [], reply
        mine = [c for c in reply.tool_calls if c.name in self.names]
        if not mine:
            return [], reply
        return mine, reply.model_copy(update={"tool_calls": [c for c in reply.tool_calls if c not in mine]})

    async def call(self, call: ToolCallText) -> tuple[dict[str, Any], str]:
        """Run one tool call (``name``, ``arguments`` JSON text); returns the result and the line the model reads."""
        assert self.toolbox is not None
        try:
            args = json.loads(call.arguments) if call.arguments.strip() else {}
        except ValueError as exc:
            result = {"error": "invalid_arguments", "message": f"{call.name}: arguments are not JSON ({exc})"}
        else:
            result = await self.toolbox.call(call.name, args, caller="agent")
        shown = json.dumps(result, ensure_ascii=False)
        if len(shown) > RESULT_CHARS:
            shown = shown[:RESULT_CHARS] + "…"
        verdict = "failed" if is_error(result) else "ok"
        return result, defuse(f"{call.name}({call.arguments.strip()[:200]}) → {verdict}: {shown}")

    async def run(
        self, call: ToolCallText, step: int, note: Callable[[str, str], None], sink: EventSink | None
    ) -> dict[str, Any]:
        """One call as a step's action: the model is told (``note``), listeners too; returns the record entry."""
        result, line = await self.call(call)
        note(line, line[:160])
        await emit(
            sink, ActionFinished(step=step, action=call.name, ok=not is_error(result), message=line[:200])
        )
        return {"tool": call.name, "arguments": call.arguments, "result": result}

    async def close(self) -> None:
        if self.toolbox is not None:
            await self.toolbox.close()
