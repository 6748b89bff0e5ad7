"""The local backend: one Chromium in this process (the pool's shared browser), one browser context per task;
a dead browser is restarted by the pool (once, under a lock, however many tasks notice it)."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

from kite_browser.agent.batch.execute import failed, run_job
from kite_browser.agent.batch.jobs import Job
from kite_browser.agent.batch.results import TaskResult
from kite_browser.agent.browser.pool import BrowserPool
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
        pool: BrowserPool | None = None,
    ) -> None:
        """``pool``: where the browser comes from (left open; e.g. ``kite serve``'s); ``browser``: a browser
        started by the caller and left open; neither: a pool of the backend's own, closed by ``close()``."""
        self.browser_config, self.slots = browser_config, max(1, concurrency)
        self.downloads_dir = downloads_dir
        self._owned = pool is None
        self.pool = pool or BrowserPool(browser_config, downloads_dir=downloads_dir, session=browser)

    async def start(self) -> None:
        await self.pool.shared()

    async def close(self) -> None:
        if self._owned:
            await self.pool.close()

    async def run(self, job: Job) -> TaskResult:
        started = time.monotonic()
        try:
            ctx = await self.pool.context(downloads_dir=self.downloads_dir)
        except Exception as exc:
            return failed(job, exc, time.monotonic() - started)
        try:
            return await run_job(job, ctx, started)
        finally:
            with contextlib.suppress(Exception):
                await ctx.close()
