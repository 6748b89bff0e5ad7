"""The module interface: what a Kite tool module is, and the small pieces every module shares.

A module is any object with (a ``typing.Protocol``, checked by the loader):

* ``name: str`` — the name it is enabled by in config (``modules: [chrome, ...]``);
* ``async init(runtime)`` — cheap: never start a browser here (start it on the first call that needs one);
* ``tool_definitions()`` — its tools in the OpenAI form (``{"type": "function", "function": {...}}``: a
  ``ToolDef``'s ``function()``, ``agent/base/toolset.py``), read back with ``ToolDef.from_function``;
* ``async execute(ctx, tool_name, args)`` — run one call, return a JSON-serialisable dict, or raise
  ``ToolError`` (the router turns it, and anything else, into ``{"error": ..., "message": ...}``);
* ``async shutdown()`` — release everything (browsers, files); idempotent;
* optional ``tool_hints()`` (tool name -> ``ToolHints``: read-only, destructive, open-world), ``http_router()``
  (a FastAPI ``APIRouter`` mounted at ``/api/modules/<name>``) and ``web_component()`` (a ``WebComponent``:
  display name, icon, panel HTML/CSS/JS).

Most modules subclass ``ToolModule``: declare ``Tool``s (name, pydantic parameter model, handler) and get
generated definitions, argument validation and dispatch for free.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import inspect
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kite_browser.agent.base.errors import KiteError
from kite_browser.agent.base.jsonschema import flat_schema
from kite_browser.agent.base.levels import LevelName
from kite_browser.agent.base.toolset import READS as READS  # where module authors found them before
from kite_browser.agent.base.toolset import ChatTool, JsonObject, ToolArgs, ToolDef, ToolHints
from kite_browser.agent.base.toolset import is_error as is_error
from kite_browser.safety.toolset import CallPlan, CallRefusedError, GatedToolset, OneCall, Verdict

if TYPE_CHECKING:
    from kite_browser.agent.browser.pool import BrowserPool
    from kite_browser.agent.config import KiteConfig
    from kite_browser.safety.confirm import Confirmer, Gate, GateResult

ModuleStatus = Literal["loaded", "initialized", "error", "shutdown"]
SafetyLevel = LevelName


class ToolError(KiteError):
    """A tool call failed. ``to_dict()`` is ``{"error": <snake_case>, "message": ..., **context}``."""

    type = "tool_error"

    def __init__(self, error: str, message: str, **context: Any) -> None:
        super().__init__(message, **context)
        self.error = error

    def to_dict(self) -> JsonObject:
        return {"error": self.error, "message": self.message, **self.context}


def tool_error(error: str, message: str, **context: Any) -> JsonObject:
    """The wire form of a typed tool error (for code that returns rather than raises)."""
    return {"error": error, "message": message, **context}


# ----------------------------------------------------------------------------- data the system passes around


@dataclass
class ModuleRuntime:
    """What ``init(runtime)`` receives: the config, the safety gate for tool calls, the browser pool (every
    browser a module uses comes from it), folders and a logger."""

    config: KiteConfig
    gate: Gate
    pool: BrowserPool
    artifacts_dir: Path
    """Where modules write files they hand back (screenshots, canvases, saved pages)."""
    log: logging.Logger = field(default_factory=lambda: logging.getLogger("kite.modules"))

    def settings(self, module: str) -> JsonObject:
        """This module's settings: ``module_settings.<name>`` (third-party: ``module_settings.extra.<name>``)."""
        ms = self.config.module_settings
        section = getattr(ms, module, None)
        if isinstance(section, BaseModel):
            return section.model_dump()
        return dict(ms.extra.get(module, {}))


@dataclass
class CallContext:
    """Who is calling a tool. The HTTP and MCP faces bring their own confirmer; None = the runtime's default
    (``safety.approve`` decides, like batch mode)."""

    caller: str = "python"
    """python | cli | http | mcp | agent: for logs and records."""
    confirmer: Confirmer | None = None
    message_id: str | None = None
    agent_id: str | None = None
    verdict: Verdict | None = None
    """The safety wrapper's verdict on this call (a tool that declares its ``judge``): a handler that acts
    through a ``BrowserEnv`` hands it on, so the env does not ask again and takes the second look."""


class WebComponent(BaseModel):
    """A module's panel in the web UI."""

    model_config = ConfigDict(extra="forbid")
    module_name: str
    display_name: str
    icon: str = "🧩"
    """An emoji or an image URL."""
    panel_html: str = ""
    panel_css: str = ""
    panel_js: str = ""


class ModuleState(BaseModel):
    """A module's state in the registry (``kite tools list``, ``GET /api/modules``)."""

    name: str
    status: ModuleStatus
    source: Literal["builtin", "entry_point", "given"] = "builtin"
    loaded_at: str | None = None
    """ISO time the module object was created."""
    error: JsonObject | None = None
    """The typed error that put it in ``error`` (module_not_found, invalid_module_interface, module_init_failed)."""
    tool_count: int = 0
    tools: list[str] = Field(default_factory=list)


# ----------------------------------------------------------------------------- the protocol


@runtime_checkable
class KiteModule(Protocol):
    name: str

    async def init(self, runtime: ModuleRuntime) -> None: ...

    def tool_definitions(self) -> list[JsonObject]: ...

    async def execute(self, ctx: CallContext, tool_name: str, args: JsonObject) -> JsonObject: ...

    async def shutdown(self) -> None: ...


REQUIRED_MEMBERS: dict[str, str] = {
    "init": "async",
    "tool_definitions": "sync",
    "execute": "async",
    "shutdown": "async",
}


def interface_problems(obj: object) -> list[str]:
    """What is wrong with ``obj`` as a module (empty = a valid module)."""
    problems = []
    name = getattr(obj, "name", None)
    if not isinstance(name, str) or not name.strip():
        problems.append("'name' must be a non-empty string")
    for member, kind in REQUIRED_MEMBERS.items():
        fn = getattr(obj, member, None)
        if fn is None or not callable(fn):
            problems.append(f"'{member}' is missing")
        elif kind == "async" and not inspect.iscoroutinefunction(fn):
            problems.append(f"'{member}' must be an async function")
    for member in ("tool_hints", "http_router", "web_component"):
        if getattr(obj, member, None) is not None and not callable(getattr(obj, member)):
            problems.append(f"'{member}' must be a method")
    return problems


# ----------------------------------------------------------------------------- schemas from pydantic models


def parameters_schema(model: type[BaseModel]) -> JsonObject:
    """The JSON Schema of a parameter model, flattened for the widest LLM provider support."""
    return copy.deepcopy(_schema(model))


@functools.cache
def _schema(model: type[BaseModel]) -> JsonObject:
    schema = model.model_json_schema(by_alias=True)
    params = flat_schema(schema)
    params.pop("description", None)
    params["type"] = "object"
    params.setdefault("properties", {})
    params.setdefault("required", [])
    return params


Params = ToolArgs
"""Base for tool parameter models (``agent/base/toolset.py``: ``ToolArgs``), under the name module authors know."""

Handler = Callable[[CallContext, Any], Awaitable[JsonObject]]
Judge = Callable[[CallContext, Any], Awaitable[CallPlan]]
"""What a call of a tool amounts to for the safety gate: a browser action on a page, or a declared level."""


@dataclass(frozen=True)
class Tool:
    """One tool: its name, one-line description, parameter model and handler ``async (ctx, params) -> dict``.

    ``safety`` is the level a call gets when the module has nothing more specific to say (``read_only`` tools
    are ``auto``); modules that map a call to a browser action let the safety policy judge it instead."""

    name: str
    description: str
    params: type[BaseModel]
    handler: Handler
    safety: SafetyLevel = "auto"
    hints: ToolHints = field(default_factory=ToolHints)
    judge: Judge | None = None
    """Given: every call runs through the safety wrapper (``safety/toolset.py``), judged before the handler
    runs, and a refused call never reaches it; the handler finds the verdict in ``ctx.verdict``. None: the
    handler's steps are judged through the wrapper as it takes them (``act_gated``: a click through the env
    on the page it observed)."""

    def tool_def(self) -> ToolDef:
        return ToolDef(
            self.name, self.description, parameters_schema(self.params), self.hints, args=self.params
        )


def refusal(tool: str, result: GateResult) -> ToolError:
    """The typed error of a call the gate refused."""
    why = "; ".join(result.decision.reasons) or result.decision.level.value
    if result.refused == "blocked":
        return ToolError("blocked", f"{tool}: blocked by the safety policy: {why}", tool=tool, level="block")
    reason = result.answer.reason if result.answer is not None else ""
    return ToolError(
        "declined",
        f"{tool}: needs confirmation ({why}) and was declined: {reason or 'no reason given'}",
        tool=tool,
        level="confirm",
    )


async def judged_call(gate: Gate, ctx: CallContext, tool: Tool, params: BaseModel) -> JsonObject:
    """A call of a tool with a ``judge`` through the safety wrapper (``safety/toolset.py``): judged (the
    caller's confirmer asked), then run; a refusal is a typed ``blocked`` / ``declined`` ToolError."""
    assert tool.judge is not None
    judge = tool.judge

    async def run(verdict: Verdict) -> JsonObject:
        return await tool.handler(dataclasses.replace(ctx, verdict=verdict), params)

    gated = GatedToolset(OneCall(functools.partial(judge, ctx, params), run), gate, ctx.confirmer)
    try:
        return await gated.call(tool.name, params.model_dump(mode="json"))
    except CallRefusedError as exc:
        raise refusal(tool.name, exc.verdict.gate) from None


def validation_error(tool: str, exc: ValidationError) -> ToolError:
    """A pydantic failure as ``invalid_arguments`` naming each bad field."""
    problems = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "(arguments)"
        problems.append({"field": loc, "problem": err["msg"]})
    text = "; ".join(f"{p['field']}: {p['problem']}" for p in problems[:5])
    return ToolError("invalid_arguments", f"{tool}: {text}", tool=tool, problems=problems)


def validate_args(tool: str, model: type[BaseModel], args: object) -> BaseModel:
    if not isinstance(args, dict):
        raise ToolError(
            "invalid_arguments",
            f"{tool}: arguments must be a JSON object, not {type(args).__name__}",
            tool=tool,
        )
    try:
        return model.model_validate(args)
    except ValidationError as exc:
        raise validation_error(tool, exc) from None


class ToolModule:
    """A convenient base: subclasses set ``name`` and return their ``Tool``s from ``tools()``."""

    name: str = ""
    runtime: ModuleRuntime | None = None

    def tools(self) -> Sequence[Tool]:
        raise NotImplementedError

    def _tool_map(self) -> dict[str, Tool]:
        cached = self.__dict__.get("_tools_by_name")
        if cached is None:
            cached = {t.name: t for t in self.tools()}
            self.__dict__["_tools_by_name"] = cached
        return cached

    async def init(self, runtime: ModuleRuntime) -> None:
        self.runtime = runtime

    def definitions(self) -> list[ToolDef]:
        """The module's tools as a toolset lists them (``agent/base/toolset.py``)."""
        return [t.tool_def() for t in self._tool_map().values()]

    def tool_definitions(self) -> list[ChatTool]:
        return [d.function() for d in self.definitions()]

    def tool(self, name: str) -> Tool | None:
        return self._tool_map().get(name)

    def tool_hints(self) -> dict[str, ToolHints]:
        """Each tool's declared hints (optional module member; ``kite mcp`` turns them into annotations)."""
        return {t.name: t.hints for t in self._tool_map().values()}

    async def execute(self, ctx: CallContext, tool_name: str, args: JsonObject) -> JsonObject:
        tool = self._tool_map().get(tool_name)
        if tool is None:
            raise ToolError("unknown_tool", f"module {self.name} has no tool {tool_name!r}", tool=tool_name)
        params = validate_args(tool_name, tool.params, args)
        return await self.run_tool(ctx, tool, params)

    async def run_tool(self, ctx: CallContext, tool: Tool, params: BaseModel) -> JsonObject:
        """One checked call: through the safety wrapper when the tool declares its ``judge``."""
        if tool.judge is not None:
            return await judged_call(self.gate, ctx, tool, params)
        return await tool.handler(ctx, params)

    async def shutdown(self) -> None:
        return None

    @property
    def gate(self) -> Gate:
        if self.runtime is None:
            raise ToolError("module_not_initialized", f"module {self.name} was not initialised")
        return self.runtime.gate
