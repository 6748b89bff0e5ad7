"""``Toolbox``: Kite's tools for any agent framework, in one object.

    async with Toolbox(load_config(), confirmer=my_confirmer) as tb:
        tools = tb.tool_definitions()                  # OpenAI-style function definitions
        result = await tb.call("chrome_launch", {})    # a dict: the result, or {"error": ..., "message": ...}

Modules start lazily (no browser before a call needs one) and everything is shut down when the block ends,
also on Ctrl-C and SIGTERM (no Chromium is left behind).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import threading
from collections.abc import Callable, Iterable, Mapping
from types import TracebackType

from pydantic import JsonValue

from kite_browser.agent.base.toolset import ChatTool, JsonObject, ToolDef
from kite_browser.agent.config import KiteConfig, load_config
from kite_browser.agent.modules.base import CallContext, ModuleState
from kite_browser.agent.modules.functions import USER_MODULE, FunctionModule
from kite_browser.agent.modules.registry import ModuleRegistry
from kite_browser.safety.confirm import Confirmer, Gate

_open: set[ModuleRegistry] = set()
_installed: set[signal.Signals] = set()


async def _die_of(sig: signal.Signals) -> None:
    for registry in list(_open):
        with contextlib.suppress(Exception):
            await asyncio.wait_for(registry.shutdown(), 20)
    _open.clear()
    loop = asyncio.get_running_loop()
    for s in list(_installed):
        with contextlib.suppress(Exception):
            loop.remove_signal_handler(s)
        signal.signal(s, signal.SIG_DFL)
    _installed.clear()
    os.kill(os.getpid(), sig)


def _install_signals() -> None:
    """SIGTERM/SIGHUP: shut every open toolbox down, then die of the same signal (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        return
    loop = asyncio.get_running_loop()
    tasks: set[asyncio.Task[None]] = set()

    def handler(sig: signal.Signals) -> None:
        task = loop.create_task(_die_of(sig))
        tasks.add(task)

    for sig in (signal.SIGTERM, signal.SIGHUP):
        if sig in _installed:
            continue
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, handler, sig)
            _installed.add(sig)


class Toolbox:
    def __init__(
        self,
        config: KiteConfig | None = None,
        *,
        modules: Iterable[str] | None = None,
        confirmer: Confirmer | None = None,
        tools: Iterable[Callable[..., object]] = (),
        handle_signals: bool = True,
    ) -> None:
        """``modules`` overrides ``config.modules``; ``confirmer`` answers calls the safety policy puts at
        ``confirm`` (default: ``safety.approve`` decides, as in batch mode); ``tools`` are your own typed
        functions (module ``user_tools``)."""
        self.config = config or load_config()
        names = list(self.config.modules if modules is None else modules)
        given: dict[str, object] = {}
        functions = list(tools)
        if functions:
            given[USER_MODULE] = FunctionModule(functions)
            names.append(USER_MODULE)
        self.registry = ModuleRegistry(
            self.config, gate=Gate.from_config(self.config.safety, confirmer), given=given, names=names
        )
        self.handle_signals = handle_signals

    async def __aenter__(self) -> Toolbox:
        return await self.start()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def start(self) -> Toolbox:
        _open.add(self.registry)
        if self.handle_signals:
            _install_signals()
        await self.registry.load()
        return self

    async def close(self) -> None:
        try:
            await asyncio.shield(self.registry.shutdown())
        finally:
            _open.discard(self.registry)

    def definitions(self) -> list[ToolDef]:
        """Every enabled tool as a toolset lists it (``agent/base/toolset.py``)."""
        return self.registry.definitions()

    def tool_definitions(self, only: Iterable[str] | None = None) -> list[ChatTool]:
        """Every enabled tool in the OpenAI form (``only``: these names)."""
        return self.registry.tool_definitions(only)

    def states(self) -> list[ModuleState]:
        return self.registry.states()

    async def call(
        self,
        tool: str,
        args: Mapping[str, JsonValue] | None = None,
        *,
        confirmer: Confirmer | None = None,
        caller: str = "python",
    ) -> JsonObject:
        """Call one tool; always returns a dict (the result, or a typed error ``{"error", "message", ...}``)."""
        return await self.registry.call(tool, args, CallContext(caller=caller, confirmer=confirmer))
