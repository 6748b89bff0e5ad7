"""Small in-process modules for the module-system tests (no browser): each tool answers which module ran it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import Field

from kite_browser.agent.modules.base import CallContext, ModuleRuntime, Params, Tool, ToolError, ToolModule


class EchoParams(Params):
    value: int = Field(0, description="A number echoed back.")


class FakeModule(ToolModule):
    """A valid module with the given tool names; ``fail_init`` makes init raise."""

    def __init__(self, name: str, tools: Sequence[str] = (), *, fail_init: bool = False) -> None:
        self.name = name
        self.tool_names = list(tools)
        self.fail_init = fail_init
        self.shutdowns = 0

    async def init(self, runtime: ModuleRuntime) -> None:
        if self.fail_init:
            raise RuntimeError(f"{self.name} cannot start")
        await super().init(runtime)

    def tools(self) -> Sequence[Tool]:
        async def run(ctx: CallContext, params: EchoParams, _tool: str = "") -> dict[str, Any]:
            if params.value < 0:
                raise ToolError("negative_value", "value must not be negative", value=params.value)
            if params.value == 13:
                raise RuntimeError("an unexpected crash")
            return {"module": self.name, "value": params.value}

        return [Tool(name, f"echo from {self.name}", EchoParams, run) for name in self.tool_names]

    async def shutdown(self) -> None:
        self.shutdowns += 1


class Incomplete:
    """An object missing some interface members (which ones: ``drop``); ``sync`` makes those plain functions."""

    def __init__(self, name: Any, drop: Sequence[str] = (), sync: Sequence[str] = ()) -> None:
        self.name = name
        for member in ("init", "execute", "shutdown"):
            if member in drop:
                continue
            if member in sync:
                setattr(self, member, lambda *a, **k: None)
            else:
                setattr(self, member, _async_none)
        if "tool_definitions" not in drop:
            self.tool_definitions = list


async def _async_none(*args: Any, **kwargs: Any) -> None:
    return None


class EntryPointModule(FakeModule):
    """What a third-party package would name in its ``kite.modules`` entry point: a class with no arguments."""

    def __init__(self) -> None:
        super().__init__("m_ep", ["ep_tool"])
