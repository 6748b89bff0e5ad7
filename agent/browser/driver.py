"""The Playwright driver: the one ``async_playwright()`` call in Kite.

Part of the pool's room: ``BrowserPool`` starts the driver of the shared browser here and ``BrowserSession``
(which the pool builds) starts its own here, so neither module has to import the other for it.
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import Playwright, async_playwright


async def start_driver() -> tuple[Any, Playwright]:
    """Start one Playwright driver: ``(handle, playwright)``; stop it with ``await playwright.stop()``."""
    handle = async_playwright()
    return handle, await handle.start()
