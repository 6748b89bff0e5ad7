"""A user's own tool from a plain Python function: type hints (or one pydantic model parameter) become the
parameter schema, the docstring's first paragraph the description.

    def word_count(text: str, unique: bool = False) -> int:
        "Count the words of a text."
        ...

    Toolbox(config, tools=[word_count])          # or Agent(config, tools=[word_count])

Such a tool runs at the safety level ``confirm`` (the caller's confirmer is asked) unless it is declared
read-only: ``@tool(read_only=True)`` (level ``auto``) or ``@tool(safety="notify")``.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar, get_type_hints, overload

from pydantic import BaseModel, ConfigDict, create_model

from kite_browser.agent.base.toolset import JsonObject, ToolHints
from kite_browser.agent.modules.base import (
    CallContext,
    SafetyLevel,
    Tool,
    ToolError,
    ToolModule,
)
from kite_browser.safety.toolset import CallPlan

USER_MODULE = "user_tools"


F = TypeVar("F", bound=Callable[..., object])


@overload
def tool(
    fn: F,
    *,
    name: str | None = None,
    description: str | None = None,
    read_only: bool = False,
    safety: SafetyLevel | None = None,
    hints: ToolHints | None = None,
) -> F: ...


@overload
def tool(
    fn: None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    read_only: bool = False,
    safety: SafetyLevel | None = None,
    hints: ToolHints | None = None,
) -> Callable[[F], F]: ...


def tool(
    fn: F | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    read_only: bool = False,
    safety: SafetyLevel | None = None,
    hints: ToolHints | None = None,
) -> F | Callable[[F], F]:
    """Mark a function as a tool (all arguments optional): ``@tool`` or ``@tool(read_only=True)``.

    ``hints`` says what a call can do (MCP annotations); default: read-only and not destructive when
    ``read_only`` (it may still reach the web), else the cautious ``ToolHints()``."""

    def mark(f: F) -> F:
        f.__kite_tool__ = {  # type: ignore[attr-defined]
            "name": name,
            "description": description,
            "safety": safety or ("auto" if read_only else "confirm"),
            "read_only": read_only,
            "hints": hints,
        }
        return f

    return mark(fn) if fn is not None else mark


def _model_param(fn: Callable[..., object], hints: dict[str, object]) -> tuple[str, type[BaseModel]] | None:
    params = list(inspect.signature(fn).parameters.values())
    if len(params) == 1:
        hint = hints.get(params[0].name)
        if inspect.isclass(hint) and issubclass(hint, BaseModel):
            return params[0].name, hint
    return None


def _default_hints(read_only: bool) -> ToolHints:
    return ToolHints(read_only=True, destructive=False) if read_only else ToolHints()


def _description(fn: Callable[..., object]) -> str:
    doc = inspect.getdoc(fn) or ""
    first = doc.split("\n\n", 1)[0]
    return " ".join(first.split()) or fn.__name__.replace("_", " ")


def function_tool(fn: Callable[..., Any]) -> Tool:  # the user's function: it returns what it returns
    """The ``Tool`` for a typed function (raises TypeError naming a parameter without a type hint)."""
    meta = getattr(fn, "__kite_tool__", {})
    tool_name = meta.get("name") or fn.__name__
    hints = get_type_hints(fn)
    single = _model_param(fn, hints)
    if single is not None:
        arg_name, model = single
    else:
        fields: dict[str, Any] = {}
        for p in inspect.signature(fn).parameters.values():
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise TypeError(f"tool {tool_name}: *args/**kwargs cannot be described to a model")
            if p.name not in hints:
                raise TypeError(f"tool {tool_name}: parameter {p.name!r} needs a type hint")
            default = ... if p.default is inspect.Parameter.empty else p.default
            fields[p.name] = (hints[p.name], default)
        model = create_model(f"{tool_name}_params", __config__=ConfigDict(extra="forbid"), **fields)
        arg_name = ""
    level: SafetyLevel = meta.get("safety", "confirm")
    is_async = inspect.iscoroutinefunction(fn)

    async def run(ctx: CallContext, params: BaseModel) -> JsonObject:
        kwargs = (
            {arg_name: params} if arg_name else {k: getattr(params, k) for k in type(params).model_fields}
        )
        if is_async:
            value = await fn(**kwargs)
        else:
            value = await asyncio.to_thread(fn, **kwargs)
        if isinstance(value, BaseModel):
            value = value.model_dump(mode="json")
        return value if isinstance(value, dict) else {"result": value}

    async def judge(ctx: CallContext, params: BaseModel) -> CallPlan:
        """A user's tool is no browser action: judged at its declared level, on its checked arguments."""
        return CallPlan(level=level, args=params.model_dump(mode="json"))

    return Tool(
        name=tool_name,
        description=meta.get("description") or _description(fn),
        params=model,
        handler=run,
        safety=level,
        hints=meta.get("hints") or _default_hints(bool(meta.get("read_only"))),
        judge=judge,
    )


class FunctionModule(ToolModule):
    """A module made of plain functions (``Toolbox(tools=[...])``, ``Agent(tools=[...])``)."""

    def __init__(self, functions: Iterable[Callable[..., object]], name: str = USER_MODULE) -> None:
        self.name = name
        self._tools = [function_tool(f) for f in functions]

    def tools(self) -> Sequence[Tool]:
        return self._tools

    async def execute(self, ctx: CallContext, tool_name: str, args: JsonObject) -> JsonObject:
        """A call through the safety wrapper (every function tool declares its level: ``judge``); what the
        function raises is a typed ``tool_failed``."""
        if self.tool(tool_name) is None:
            raise ToolError("unknown_tool", f"no tool {tool_name!r}", tool=tool_name)
        try:
            return await super().execute(ctx, tool_name, args)
        except ToolError:
            raise
        except Exception as exc:
            raise ToolError(
                "tool_failed", f"{tool_name} raised {type(exc).__name__}: {exc}", tool=tool_name
            ) from exc
