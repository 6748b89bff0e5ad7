"""The local backend: one Chromium in this process, one browser context per task, a dead browser restarted
(once, under a lock, however many tasks notice it)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path

from kite_browser.agent.batch.execute import failed, run_job
from kite_browser.agent.batch.jobs import Job
from kite_browser.agent.batch.results import TaskResult
from kite_browser.agent.browser.session import BrowserSession
from kite_browser.agent.config import BrowserConfig


class LocalBackend:
    def __init__(
        self,
        browser_config: BrowserConfig,
        *,
        concurrency: int = 1,
        downloads_dir: Path | None = None,
        browser: BrowserSession | None = None,
    ) -> None:
        self.browser_config, self.slots = browser_config, max(1, concurrency)
        self.downloads_dir = downloads_dir
        self.browser = browser
        """The browser to use (started by the caller and left open), else one is launched and closed here."""
        self._owned = browser is None
        self._restart_lock = asyncio.Lock()

    async def start(self) -> None:
        if self.browser is None:
            self.browser = BrowserSession(self.browser_config, downloads_dir=self.downloads_dir)
            await self.browser.start()

    async def close(self) -> None:
        if self._owned and self.browser is not None:
            await self.browser.close()
            self.browser = None

    async def run(self, job: Job) -> TaskResult:
        assert self.browser is not None, "start the backend first"
        started = time.monotonic()
        try:
            async with self._restart_lock:
                if not self.browser.is_alive:
                    await self.browser.restart()
            ctx = await self.browser.new_context(downloads_dir=self.downloads_dir)
        except Exception as exc:
            return failed(job, exc, time.monotonic() - started)
        try:
            return await run_job(job, ctx, started)
        finally:
            with contextlib.suppress(Exception):
                await ctx.close()
