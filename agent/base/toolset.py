"""One toolset interface for every source of tools (pydantic-ai's ``AbstractToolset``).

A tool's shape is one ``ToolDef``: name, one-line description, the JSON schema of its arguments, hints, and
the pydantic models of its arguments and structured result where it has them. Every face takes it from
there: ``function()`` is the OpenAI form a model is offered (``ChatTool``) and the HTTP API answers,
``from_function`` reads that form back (a module's ``tool_definitions()``), and ``kite mcp`` makes its MCP
tool from it (``agent/mcp/tools.py``: ``mcp_tool``).

A toolset lists its tools' definitions and calls one by name with JSON arguments. Kite has three sources and
each is a toolset:

* the page actions offered to tool callers (``agent/modules/action_tools.py``: the action registry's faces,
  acting through one environment);
* the tool modules (``agent/modules/registry.py``: ``ModuleRegistry``, every enabled module's tools);
* the MCP server's tools (``agent/mcp/server.py``: the two above and the server's own, for one client).

Safety is one wrapper around a toolset (``safety/toolset.py``: ``GatedToolset``): it asks the safety gate
what a call amounts to before the call runs, so a refused call never runs.
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass, field
from typing import Annotated, Literal, Protocol, Required, TypeGuard, TypeVar

from pydantic import BaseModel, ConfigDict, StringConstraints, TypeAdapter
from typing_extensions import TypedDict

from kite_browser.agent.base.jsontypes import JsonObject

TOOL_NAME = r"^[A-Za-z_][A-Za-z0-9_\-]{0,63}$"
"""What every provider accepts as a function's name."""


class FunctionDef(TypedDict, total=False):
    """A tool's function in the OpenAI form: its name, what it does, its parameters as a JSON schema."""

    name: Required[Annotated[str, StringConstraints(pattern=TOOL_NAME)]]
    description: str
    parameters: JsonObject


class ChatTool(TypedDict):
    """A ``ToolDef`` in the OpenAI form litellm takes for every provider (``ToolDef.function``): the tools a
    model is offered, a module's ``tool_definitions()``, the HTTP API's tool definitions."""

    type: Literal["function"]
    function: FunctionDef


@functools.cache
def _chat_tool() -> TypeAdapter[ChatTool]:
    return TypeAdapter(ChatTool)


class ToolArgs(BaseModel):
    """Base of every tool's argument model: an argument the tool does not have is refused, and a field may be
    given by its alias or its name."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


@dataclass(frozen=True)
class ToolHints:
    """What a call of a tool can do, declared next to it (the MCP tool annotations ``kite mcp`` sends).

    The defaults are the MCP spec's own, the cautious reading: it may change things (``read_only`` false),
    destroy or send data (``destructive``) and reach beyond Kite (``open_world``: the web, other processes).
    A tool says less only when that is true of every call."""

    read_only: bool = False
    destructive: bool = True
    open_world: bool = True
    idempotent: bool = False


READS = ToolHints(read_only=True, destructive=False, open_world=False, idempotent=True)
"""Only reads state Kite already holds (a loaded page, a tab list): no request leaves, nothing changes."""
LOADS = ToolHints(destructive=False)
"""Changes the page (requests may leave) but submits, sends or deletes nothing by itself."""
ACTS = ToolHints()
"""Can submit a form, send data or delete something (a click can press "Delete account")."""


def no_arguments() -> JsonObject:
    """The JSON schema of a tool that takes no arguments."""
    return {"type": "object", "properties": {}}


@dataclass(frozen=True, eq=False)
class ToolDef:
    """One tool's shape, as every toolset lists it and every face offers it."""

    name: str
    description: str = ""
    parameters: JsonObject = field(default_factory=no_arguments)
    """The JSON schema of its arguments (an object)."""
    hints: ToolHints = ToolHints()
    args: type[BaseModel] | None = None
    """The model a call's arguments are checked against (None: a tool known by its schema alone)."""
    output: type[BaseModel] | None = None
    """The model of its structured result, the MCP tool's ``outputSchema`` (None: its answer is not data)."""

    def function(self) -> ChatTool:
        """The OpenAI-style function definition (``{"type": "function", "function": {...}}``), its schema a
        copy (a caller may change what it is given; the definition stays as it was)."""
        parameters = copy.deepcopy(self.parameters)
        return ChatTool(
            type="function",
            function=FunctionDef(name=self.name, description=self.description, parameters=parameters),
        )

    @classmethod
    def from_function(cls, given: object) -> ToolDef:
        """The tool a definition in the OpenAI form describes (``type`` may be left out); pydantic's
        ``ValidationError`` when it is not one."""
        data = {"type": "function", **given} if isinstance(given, dict) else given
        fn = _chat_tool().validate_python(data)["function"]
        return cls(fn["name"], fn.get("description", ""), fn.get("parameters") or no_arguments())


R_co = TypeVar("R_co", covariant=True)


class Toolset(Protocol[R_co]):
    """Lists tools and calls one by name (its arguments are checked against its definition by the toolset)."""

    def definitions(self) -> list[ToolDef]: ...

    async def call(self, name: str, args: JsonObject, /) -> R_co: ...


class ManagedToolset(Toolset[R_co], Protocol):
    """A toolset started before its first call and closed after its last (modules load, browsers end)."""

    async def start(self) -> list[str]:
        """Get ready; returns warnings (a tool asked for that no source offers)."""
        ...

    async def close(self) -> None: ...


def is_error(result: object) -> TypeGuard[JsonObject]:
    """A call's result that is a typed error: ``{"error": "<snake_case>", "message": ..., ...context}``."""
    return isinstance(result, dict) and isinstance(result.get("error"), str) and "message" in result
