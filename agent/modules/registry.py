"""The module registry: load exactly the listed modules, keep their states, merge tools, route calls.

Failure isolation: a module that cannot be found or imported (``module_not_found``), lacks a member of the
interface or returns malformed tool definitions (``invalid_module_interface``), or raises in ``init``
(``module_init_failed``) is recorded in ``error`` state and the others load. Tool names are merged in load
order; a duplicate name logs a warning and the later module wins. Every call answers a dict: the tool's
result, or ``{"error": "<snake_case>", "message": ..., ...context}`` — never a traceback, never a hang
(``module_settings.call_timeout_s``).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import traceback
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from kite_browser.agent.base.toolset import ChatTool, JsonObject, ToolDef, ToolHints
from kite_browser.agent.browser.pool import BrowserPool
from kite_browser.agent.config import KiteConfig
from kite_browser.agent.modules import loader
from kite_browser.agent.modules.base import (
    CallContext,
    KiteModule,
    ModuleRuntime,
    ModuleState,
    ToolError,
    WebComponent,
    interface_problems,
    tool_error,
)
from kite_browser.safety.confirm import Gate

if TYPE_CHECKING:
    from fastapi import APIRouter

log = logging.getLogger("kite.modules")
SHUTDOWN_TIMEOUT_S = 15.0


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class ModuleRegistry:
    """Modules of one config. ``await load()`` once, then ``call``; ``await shutdown()`` at the end."""

    def __init__(
        self,
        config: KiteConfig,
        *,
        gate: Gate | None = None,
        given: Mapping[str, object] | None = None,
        names: Iterable[str] | None = None,
        pool: BrowserPool | None = None,
    ) -> None:
        """``given``: module objects or factories by name, used before built-ins and entry points (tests,
        ``Agent(tools=[fn])``); ``names``: load these instead of ``config.modules``; ``pool``: where the
        modules get their browsers (default: one of the registry's own, closed by ``shutdown``)."""
        self.config = config
        self.gate = gate or Gate.from_config(config.safety)
        self.pool = pool or BrowserPool(config.browser)
        self._owns_pool = pool is None
        self.given = dict(given or {})
        self.names = list(dict.fromkeys(config.modules if names is None else names))
        self._modules: dict[str, KiteModule] = {}
        self._states: dict[str, ModuleState] = {}
        self._tools: dict[str, str] = {}
        self._defs: dict[str, ToolDef] = {}
        self.warnings: list[str] = []
        self._loaded = False

    # ------------------------------------------------------------------ loading
    def runtime(self) -> ModuleRuntime:
        ms = self.config.module_settings
        folder = (
            Path(ms.artifacts_dir).expanduser() if ms.artifacts_dir else self.config.data_dir() / "artifacts"
        )
        return ModuleRuntime(
            config=self.config, gate=self.gate, pool=self.pool, artifacts_dir=folder, log=log
        )

    async def load(self) -> list[ModuleState]:
        """Load and initialise every listed module (idempotent); returns their states."""
        if self._loaded:
            return self.states()
        self._loaded = True
        runtime = self.runtime()
        for name in self.names:
            await self._load_one(name, runtime)
        return self.states()

    def _fail(self, state: ModuleState, err: ToolError) -> None:
        state.status = "error"
        state.error = err.to_dict()
        log.warning("module %s: %s", state.name, err.message)

    async def _load_one(self, name: str, runtime: ModuleRuntime) -> None:
        state = ModuleState(name=name, status="error", loaded_at=_now())
        self._states[name] = state
        try:
            if name in self.given:
                target, state.source = self.given[name], "given"
            else:
                target, state.source = loader.find(name)
            module = loader.instantiate(target)
        except ToolError as exc:
            return self._fail(state, exc)
        except Exception as exc:
            return self._fail(state, ToolError("module_not_found", f"module {name!r}: {exc}", module=name))
        problems = interface_problems(module)
        if not problems and module.name != name:
            problems.append(f"'name' is {module.name!r}, but it was enabled as {name!r}")
        if problems:
            msg = f"module {name!r} does not implement the module interface: " + "; ".join(problems)
            return self._fail(
                state, ToolError("invalid_module_interface", msg, module=name, problems=problems)
            )
        state.status = "loaded"
        try:
            await asyncio.wait_for(module.init(runtime), self.config.module_settings.call_timeout_s)
        except Exception as exc:
            log.debug("init of %s failed:\n%s", name, traceback.format_exc())
            err = ToolError("module_init_failed", f"module {name!r} failed to initialise: {exc}", module=name)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(module.shutdown(), SHUTDOWN_TIMEOUT_S)
            return self._fail(state, err)
        try:
            defs = [ToolDef.from_function(d) for d in module.tool_definitions()]
        except (ValidationError, TypeError, Exception) as exc:
            msg = f"module {name!r} returned invalid tool definitions: {str(exc).splitlines()[0]}"
            with contextlib.suppress(Exception):
                await asyncio.wait_for(module.shutdown(), SHUTDOWN_TIMEOUT_S)
            return self._fail(state, ToolError("invalid_module_interface", msg, module=name))
        self._modules[name] = module
        state.status = "initialized"
        state.tools = [d.name for d in defs]
        state.tool_count = len(state.tools)
        for d in defs:
            tool = d.name
            previous = self._tools.get(tool)
            if previous is not None and previous != name:
                warning = (
                    f"duplicate_tool_name: {tool!r} of module {previous!r} is replaced by module {name!r}"
                )
                self.warnings.append(warning)
                log.warning(warning)
            self._tools[tool] = name
            self._defs[tool] = d

    # ------------------------------------------------------------------ queries
    def states(self) -> list[ModuleState]:
        return [s.model_copy(deep=True) for s in self._states.values()]

    def state(self, name: str) -> ModuleState | None:
        state = self._states.get(name)
        return state.model_copy(deep=True) if state is not None else None

    def module(self, name: str) -> KiteModule | None:
        return self._modules.get(name)

    @property
    def modules(self) -> dict[str, KiteModule]:
        return dict(self._modules)

    def owner(self, tool: str) -> str | None:
        """The module that answers ``tool`` (the later one for a duplicate name)."""
        return self._tools.get(tool)

    def tool_names(self) -> list[str]:
        return list(self._tools)

    def definitions(self, only: Iterable[str] | None = None) -> list[ToolDef]:
        """Every enabled module's tools, one per name, with the hints their modules declare: the modules as
        one toolset (``agent/base/toolset.py``), whose ``call`` answers a JSON object. ``only`` keeps those names
        (in the registry's order)."""
        keep = None if only is None else set(only)
        hints = self.tool_hints()
        return [
            dataclasses.replace(d, hints=hints[name])
            for name, d in self._defs.items()
            if keep is None or name in keep
        ]

    def tool_definitions(self, only: Iterable[str] | None = None) -> list[ChatTool]:
        """``definitions`` in the OpenAI form."""
        return [d.function() for d in self.definitions(only)]

    def tool_hints(self) -> dict[str, ToolHints]:
        """Tool name -> the hints its module declares (``ToolHints()``, the cautious default, when it declares
        none or its ``tool_hints()`` fails)."""
        declared: dict[str, ToolHints] = {}
        for name, module in self._modules.items():
            fn = getattr(module, "tool_hints", None)
            if fn is None:
                continue
            try:
                hints = fn()
            except Exception as exc:
                log.warning("module %s: tool_hints() failed: %s", name, exc)
                continue
            for tool, h in (hints or {}).items():
                if self._tools.get(tool) == name and isinstance(h, ToolHints):
                    declared[tool] = h
        return {tool: declared.get(tool, ToolHints()) for tool in self._tools}

    def web_components(self) -> list[WebComponent]:
        out = []
        for name, module in self._modules.items():
            fn = getattr(module, "web_component", None)
            if fn is None:
                continue
            try:
                comp = fn()
            except Exception as exc:
                log.warning("module %s: web_component() failed: %s", name, exc)
                continue
            if comp is not None:
                out.append(comp if isinstance(comp, WebComponent) else WebComponent.model_validate(comp))
        return out

    def http_routers(self) -> dict[str, APIRouter]:
        """Module name -> its HTTP router (mounted by the server at /api/modules/<name>)."""
        out: dict[str, APIRouter] = {}
        for name, module in self._modules.items():
            fn = getattr(module, "http_router", None)
            router = fn() if fn is not None else None
            if router is not None:
                out[name] = router
        return out

    # ------------------------------------------------------------------ calls
    async def call(
        self,
        tool: str,
        args: object = None,
        ctx: CallContext | None = None,
        *,
        timeout_s: float | None = None,
    ) -> JsonObject:
        """Route one call to its module; always a dict (the result, or a typed error)."""
        ctx = ctx or CallContext()
        owner = self._tools.get(tool)
        if owner is None:
            return tool_error(
                "unknown_tool",
                f"no enabled module offers a tool named {tool!r}",
                tool=tool,
                available=sorted(self._tools),
            )
        state = self._states[owner]
        if state.status != "initialized":
            return tool_error(
                "module_unavailable", f"module {owner!r} is {state.status}", tool=tool, module=owner
            )
        args = {} if args is None else args
        if not isinstance(args, dict):
            return tool_error(
                "invalid_arguments",
                f"{tool}: arguments must be a JSON object, not {type(args).__name__}",
                tool=tool,
            )
        limit = timeout_s or self.config.module_settings.call_timeout_s
        try:
            async with asyncio.timeout(limit):  # no extra task per call, unlike wait_for on Python 3.11
                result = await self._modules[owner].execute(ctx, tool, args)
        except ToolError as exc:
            return exc.to_dict()
        except TimeoutError:
            return tool_error(
                "tool_timeout", f"{tool} did not answer within {limit:g} s", tool=tool, timeout_s=limit
            )
        except Exception as exc:
            log.debug("tool %s failed:\n%s", tool, traceback.format_exc())
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            return tool_error("tool_failed", f"{tool} failed: {first}", tool=tool, module=owner)
        if result is None:
            return {}
        if not isinstance(result, dict):
            return {"result": result}
        return result

    # ------------------------------------------------------------------ shutdown
    async def shutdown(self) -> None:
        """Shut every initialised module down (each bounded in time; errors logged, never raised)."""
        for name, module in list(self._modules.items()):
            try:
                await asyncio.wait_for(module.shutdown(), SHUTDOWN_TIMEOUT_S)
            except Exception as exc:
                log.warning("module %s: shutdown failed: %s", name, exc)
            self._states[name].status = "shutdown"
        self._modules.clear()
        await self.gate.flush()
        if self._owns_pool:
            await self.pool.close()
