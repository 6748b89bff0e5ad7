"""The Playwright driver: the one ``async_playwright()`` call in Kite.

Part of the pool's room: ``BrowserPool`` starts the driver of the shared browser here and ``BrowserSession``
(which the pool builds) starts its own here, so neither module has to import the other for it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from playwright.async_api import Playwright, PlaywrightContextManager, async_playwright

from kite_browser.agent.browser.world import register_engine


async def start_driver() -> tuple[PlaywrightContextManager, Playwright]:
    """Start one Playwright driver: ``(handle, playwright)``; stop it with ``await playwright.stop()``. Kite's
    selector engine (the door from its world to element handles: ``world.py``) is registered on it."""
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
