"""The dedicated headless Chromium of ``run_javascript``: one browser (its own, shared with nothing), a fresh
page per call, closed afterwards.

A page stuck in ``while(true){}`` does not answer the DevTools protocol, so a timed-out call is not waited on:
its page is closed (the browser ends that renderer process); if even that does not finish within
``KILL_GRACE_S`` the whole browser is closed and the next call starts a new one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, Page, Playwright, async_playwright
from playwright.async_api import Error as PlaywrightError

from agent.browser.chromium import require_chromium
from agent.config import KiteConfig

RUN_JS = (Path(__file__).with_name("run.js")).read_text(encoding="utf-8")
KILL_GRACE_S = 1.0
log = logging.getLogger("kite.modules.javascript")


class BrowserUnavailable(Exception):
    """No Chromium could be started."""


class ExecutionTimeout(Exception):
    pass


class SandboxCrashed(Exception):
    """The call's page crashed or was closed under it (e.g. out of memory)."""


class Sandbox:
    def __init__(self, config: KiteConfig) -> None:
        self.config = config
        self._pw: Playwright | None = None
        self._browser: Browser | None = None
        self._lock = asyncio.Lock()
        self._cleanups: set[asyncio.Future[None]] = set()
        self._spare: asyncio.Future[Page] | None = None
        self.launches = 0
        """How many browsers this sandbox has started (1 while it is reused)."""

    @property
    def alive(self) -> bool:
        return self._browser is not None and self._browser.is_connected()

    async def _ensure(self) -> None:
        async with self._lock:
            if self.alive:
                return
            await self._close_browser()
            try:
                if self._pw is None:
                    self._pw = await async_playwright().start()
                bc = self.config.browser
                self._browser = await self._pw.chromium.launch(
                    executable_path=require_chromium(bc.chromium_path),
                    headless=True,
                    args=["--disable-gpu", "--no-first-run", "--disable-extensions"],
                )
            except Exception as exc:
                await self._close_browser()
                raise BrowserUnavailable(f"{type(exc).__name__}: {str(exc).splitlines()[0]}") from exc
            self.launches += 1

    async def run(self, code: str, data: Any, timeout_s: float, max_bytes: int) -> dict[str, Any]:
        """The raw outcome of run.js (kind ok|error|unserialisable|too_large); raises ExecutionTimeout."""
        await self._ensure()
        deadline = asyncio.get_running_loop().time() + timeout_s  # the limit covers the page's creation too
        try:
            page = await asyncio.wait_for(self._take_page(), timeout_s)
        except TimeoutError:
            raise ExecutionTimeout() from None
        evaluation = asyncio.ensure_future(page.evaluate(RUN_JS, [code, data, max_bytes]))
        try:
            remaining = max(0.001, deadline - asyncio.get_running_loop().time())
            done, _ = await asyncio.wait({evaluation}, timeout=remaining)
            if not done:
                self._dispose(page, evaluation)
                raise ExecutionTimeout()
            try:
                return evaluation.result()  # type: ignore[no-any-return]
            except PlaywrightError as exc:
                raise SandboxCrashed(str(exc).splitlines()[0]) from exc
        finally:
            if evaluation.done():
                self._background(self._close_page(page))

    async def _open(self) -> Page:
        """A page in a context of its own: Chromium never shares a renderer process between contexts, so a
        page stuck in a loop cannot block (or take down with it) the page of another call."""
        assert self._browser is not None
        context = await self._browser.new_context()
        try:
            return await context.new_page()
        except BaseException:
            with contextlib.suppress(Exception):
                await context.close()
            raise

    async def _take_page(self) -> Page:
        """A fresh page: the spare one opened after the previous call (warm calls skip page creation), and
        a new spare is opened for the next call. Every page (and its context) serves one call only."""
        spare, self._spare = self._spare, None
        page: Page | None = None
        if spare is not None:
            with contextlib.suppress(Exception):
                page = await spare
        if page is None or page.is_closed() or page.context.browser is not self._browser:
            page = await self._open()
        self._spare = asyncio.ensure_future(self._open())
        return page

    @staticmethod
    async def _close_page(page: Page) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(page.context.close(), 10)

    def _background(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._cleanups.add(task)
        task.add_done_callback(self._cleanups.discard)

    def _dispose(self, page: Any, evaluation: asyncio.Future[Any]) -> None:
        """Kill a page stuck in a loop, in the background (the caller answers at once)."""

        async def close() -> None:
            try:
                await asyncio.wait_for(page.context.close(), KILL_GRACE_S)
            except Exception:
                log.warning("run_javascript: a timed-out page did not close; restarting the sandbox browser")
                async with self._lock:
                    await self._close_browser()
            with contextlib.suppress(BaseException):
                await evaluation

        self._background(close())

    async def _close_browser(self) -> None:
        browser, self._browser = self._browser, None
        spare, self._spare = self._spare, None
        if spare is not None:
            spare.cancel()
            with contextlib.suppress(BaseException):
                await spare
        if browser is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(browser.close(), 10)

    async def close(self) -> None:
        for task in list(self._cleanups):
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(task, 5)
        async with self._lock:
            await self._close_browser()
            pw, self._pw = self._pw, None
            if pw is not None:
                with contextlib.suppress(Exception):
                    await pw.stop()
