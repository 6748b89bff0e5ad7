"""Test harness for the action engine: a ContextSession, a snapshotter and an ActionExecutor on one context."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest_asyncio
from playwright.async_api import Browser, Page

from kite_browser.agent.browser.context import ContextSession
from kite_browser.agent.browser.executor import ActionExecutor
from kite_browser.agent.browser.observation import ActionResult, Element
from kite_browser.agent.browser.snapshot import Snapshotter
from kite_browser.agent.config import KiteConfig


@dataclass
class Kite:
    session: ContextSession
    snap: Snapshotter
    ex: ActionExecutor
    run_dir: Path

    @property
    def page(self) -> Page:
        return self.session.page

    async def goto(self, url: str) -> None:
        await self.page.goto(url)
        await self.snap.snapshot(self.page)

    async def act(self, **action: Any) -> ActionResult:
        return await self.ex.execute(action)

    async def index_of(self, css: str, frame_url_part: str | None = None) -> int:
        """The snapshot index of the element matching css (in the frame whose URL contains frame_url_part)."""
        page = self.page
        obs = await self.snap.snapshot(page, include_all=True)
        frame = page.main_frame
        if frame_url_part:
            frame = next(f for f in page.frames if frame_url_part in f.url)
        handle = await frame.locator(css).element_handle()
        for el in obs.elements:
            res = await self.snap.resolve(page, el.index)
            if res.frame is frame and await res.handle.evaluate("(a, b) => a === b", handle):
                return el.index
        raise AssertionError(f"{css} has no index")

    def element(self, index: int) -> Element | None:
        last = self.snap.last(self.page)
        return last.element(index) if last else None


def make_kite(session: ContextSession, run_dir: Path, config: KiteConfig | None = None, **kw: Any) -> Kite:
    cfg = config or KiteConfig()
    snap = Snapshotter(cfg.snapshot)
    return Kite(session, snap, ActionExecutor(session, snap, cfg, run_dir=run_dir, **kw), run_dir)


@pytest_asyncio.fixture
async def kite(pw_browser: Browser, tmp_path: Path) -> AsyncIterator[Kite]:
    context = await pw_browser.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True)
    session = ContextSession(context, downloads_dir=tmp_path / "downloads")
    await context.new_page()
    session.drain_events()
    try:
        yield make_kite(session, tmp_path)
    finally:
        await context.close()
