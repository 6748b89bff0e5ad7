"""The Playwright driver: the one ``async_playwright()`` call in Kite.

Part of the pool's room: ``BrowserPool`` starts the driver of the shared browser here and ``BrowserSession``
(which the pool builds) starts its own here, so neither module has to import the other for it.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from playwright.async_api import Playwright, PlaywrightContextManager, async_playwright

from kite_browser.agent.browser.world import register_engine
from kite_browser.agent.config import node_compile_cache_dir


def use_node_compile_cache() -> None:
    """Let the driver's Node keep the code it compiles (``NODE_COMPILE_CACHE``, read by Node 22.1 and later):
    each driver start then skips compiling Playwright's server again (``python -m
    kite_browser.evals.bench.driver_start`` measures it). The driver inherits this process's environment, so the variable
    is set here, unless the user set it; ``NODE_DISABLE_COMPILE_CACHE=1`` turns it off."""
    os.environ.setdefault("NODE_COMPILE_CACHE", str(node_compile_cache_dir()))


async def start_driver() -> tuple[PlaywrightContextManager, Playwright]:
    """Start one Playwright driver: ``(handle, playwright)``; stop it with ``await playwright.stop()``. Kite's
    selector engine (the door from its world to element handles: ``world.py``) is registered on it."""
    use_node_compile_cache()
    handle = async_playwright()
    pw = await handle.start()
    await register_engine(pw)
    return handle, pw


@asynccontextmanager
async def playwright_driver() -> AsyncIterator[Playwright]:
    """A driver for the length of a block (the benches and the tests' own browsers), stopped after it."""
    _, pw = await start_driver()
    try:
        yield pw
    finally:
        await pw.stop()
