"""Tools offered to the model next to the browser actions (the module tools and the user's own functions: a
``ManagedToolset``, agent/base/toolset.py). A reply's calls to them are taken out before its actions are parsed,
run through the toolset, and reported back to the model and into the step record like actions.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from kite_browser.agent.base.events import ActionFinished, EventSink, emit
from kite_browser.agent.base.fence import defuse
from kite_browser.agent.base.toolset import JsonObject, ManagedToolset, is_error
from kite_browser.agent.llm.client import LLMReply, ToolCall
from kite_browser.agent.run.model_setup import ModelSetup
from kite_browser.agent.run.step_record import ToolCallRecord

RESULT_CHARS = 600


class ToolCalls:
    """``toolset``: the tools offered (None: none, and nothing is loaded)."""

    def __init__(self, toolset: ManagedToolset[JsonObject] | None) -> None:
        self.toolset = toolset
        self.names: set[str] = set()

    async def start(self, setup: ModelSetup) -> list[str]:
        """Start the toolset and add its tools to ``setup.tools`` (function-calling models only); returns its
        warnings."""
        if self.toolset is None:
            return []
        warnings = await self.toolset.start()
        offered = self.toolset.definitions()
        self.names = {d.name for d in offered}
        if setup.tools is not None and offered:
            setup.tools = [*setup.tools, *(d.function() for d in offered)]
        return warnings

    def split(self, reply: LLMReply) -> tuple[list[ToolCall], LLMReply]:
        """The reply's calls to these tools, and the reply without them for the action parser."""
        if not self.names:
            return [], reply
        mine = [c for c in reply.tool_calls if c.name in self.names]
        if not mine:
            return [], reply
        return mine, reply.model_copy(update={"tool_calls": [c for c in reply.tool_calls if c not in mine]})

    async def call(self, call: ToolCall) -> tuple[JsonObject, str]:
        """Run one tool call; returns the result and the line the model reads."""
        assert self.toolset is not None
        try:
            args = json.loads(call.arguments) if call.arguments.strip() else {}
        except ValueError as exc:
            result: JsonObject = {
                "error": "invalid_arguments",
                "message": f"{call.name}: arguments are not JSON ({exc})",
            }
        else:
            result = await self.toolset.call(call.name, args)
        shown = json.dumps(result, ensure_ascii=False)
        if len(shown) > RESULT_CHARS:
            shown = shown[:RESULT_CHARS] + "…"
        verdict = "failed" if is_error(result) else "ok"
        return result, defuse(f"{call.name}({call.arguments.strip()[:200]}) → {verdict}: {shown}")

    async def run(
        self, call: ToolCall, step: int, note: Callable[[str, str], None], sink: EventSink | None
    ) -> ToolCallRecord:
        """One call as a step's action: the model is told (``note``), listeners too; returns the record entry."""
        result, line = await self.call(call)
        note(line, line[:160])
        await emit(
            sink, ActionFinished(step=step, action=call.name, ok=not is_error(result), message=line[:200])
        )
        return ToolCallRecord(tool=call.name, arguments=call.arguments, result=result)

    async def close(self) -> None:
        if self.toolset is not None:
            await self.toolset.close()
