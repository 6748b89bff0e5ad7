"""One toolset interface for every source of tools (pydantic-ai's ``AbstractToolset``).

A toolset lists its tools' definitions (``ToolDef``: name, one-line description, the JSON schema of the
arguments, hints) and calls one by name with JSON arguments. Kite has three sources and each is a toolset:

* the page actions offered to tool callers (``agent/modules/action_tools.py``: the action registry's faces,
  acting through one environment);
* the tool modules (``agent/modules/registry.py``: ``ModuleRegistry``, every enabled module's tools);
* the MCP server's tools (``agent/mcp/server.py``: the two above and the server's own, for one client).

Safety is one wrapper around a toolset (``safety/toolset.py``: ``GatedToolset``): it asks the safety gate
what a call amounts to before the call runs, so a refused call never runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, Required, TypeGuard, TypeVar

from typing_extensions import TypedDict

from kite_browser.agent.jsontypes import JsonObject


class FunctionDef(TypedDict, total=False):
    """A tool's function as a model is offered it: its name, what it does, its parameters as a JSON schema
    (free-form by nature)."""

    name: Required[str]
    description: str
    parameters: dict[str, Any]
    strict: bool


class ChatTool(TypedDict):
    """One tool offered to a model (the OpenAI form litellm takes for every provider): what ``ToolDef.function``
    gives, and what the action registry's tool schemas are (``agent/llm/schemas.py``)."""

    type: Literal["function"]
    function: FunctionDef


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
    """One tool as a toolset lists it."""

    name: str
    description: str = ""
    parameters: JsonObject = field(default_factory=no_arguments)
    """The JSON schema of its arguments (an object)."""
    hints: ToolHints = ToolHints()

    def function(self) -> ChatTool:
        """The OpenAI-style function definition (``{"type": "function", "function": {...}}``)."""
        return ChatTool(
            type="function",
            function=FunctionDef(name=self.name, description=self.description, parameters=self.parameters),
        )


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
