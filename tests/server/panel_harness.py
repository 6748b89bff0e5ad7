"""What the panel tests share: a live ``kite serve`` subprocess (fake model ``kite/panel``, see panel_entry.py;
``serve_config`` and ``serving``), the panel open in a page that records console errors (``panel_page``, and the
module-wide ``panel``/``page`` fixtures over a module's ``server`` fixture, registered in conftest.py), and
screenshots of each screen at the two viewports the panel is made for (``snap``)."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest_asyncio
from playwright.async_api import Browser, BrowserContext, ConsoleMessage, Page, ViewportSize, expect

from kite_browser.agent.config import BrowserConfig

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "panel-test-token-0123456789"
DESKTOP = ViewportSize(width=1280, height=800)
PHONE = ViewportSize(width=390, height=844)
LISTENING = re.compile(r"listening on (http://\S+?)/?(?:\s|#|$)")


@dataclass
class LiveServer:
    proc: subprocess.Popen[str]
    base: str
    log: list[str]
    client: httpx.Client = field(init=False)

    def __post_init__(self) -> None:
        self.client = httpx.Client(
            base_url=self.base, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60
        )

    token: str = TOKEN

    @property
    def panel_url(self) -> str:
        return f"{self.base}/#token={TOKEN}"

    def api(self, method: str, path: str, **kw: Any) -> Any:
        res = self.client.request(method, path, **kw)
        assert res.status_code < 500, res.text
        return res.json()

    def stop(self) -> int:
        self.client.close()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        return self.proc.returncode


def start_server(folder: Path, scripts: dict[str, Any], config: dict[str, Any]) -> LiveServer:
    """``kite serve --port 0`` with ``config`` (YAML) and the fake model's ``scripts``; returns once it listens."""
    (folder / "scripts.json").write_text(json.dumps(scripts))
    (folder / "kite.yaml").write_text(json.dumps(config))  # JSON is YAML
    cmd = [sys.executable, "-m", "tests.server.panel_entry", str(folder / "scripts.json"), "--"]
    cmd += ["--config", str(folder / "kite.yaml"), "serve", "--port", "0", "--token", TOKEN]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    proc = subprocess.Popen(
        cmd, cwd=ROOT, env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True
    )
    lines: queue.Queue[str | None] = queue.Queue()
    log: list[str] = []

    def pump() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            log.append(line)
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    deadline = time.monotonic() + 300  # a loaded 2-core machine: the import alone took 18 s at load 20
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
        except queue.Empty:
            break
        if line is None:
            break
        m = LISTENING.search(line)
        if m:
            return LiveServer(proc, m.group(1).rstrip("/"), log)
    proc.kill()
    raise AssertionError("kite serve did not start:\n" + "".join(log))


def serve_config(home: Path, browser_config: BrowserConfig, **sections: Any) -> dict[str, Any]:
    """A panel test server's config: the fake model ``kite/panel`` (one attempt), records and the data dir
    (profiles) under ``home``, the offline test Chromium; ``sections``: more top-level settings (``modules``,
    ``safety`` ...)."""
    return {
        "llm": {"model": "kite/panel", "max_attempts": 1},
        "run": {"runs_dir": str(home / "runs")},
        "browser": {
            "block_external_hosts": True,
            "chromium_path": browser_config.chromium_path,
            "data_dir": str(home / "data"),
        },
        **sections,
    }


@contextlib.contextmanager
def serving(
    home: Path, scripts: dict[str, Any], config: dict[str, Any], *, clean_exit: bool = False
) -> Iterator[LiveServer]:
    """A live server (``start_server``) for the ``with`` block, stopped after it; ``clean_exit``: its exit code
    must then be 0 (a graceful SIGTERM)."""
    live = start_server(home, scripts, config)
    try:
        yield live
    finally:
        code = live.stop()
        if clean_exit:
            assert code == 0, "".join(live.log)


EXPECT_TIMEOUT_MS = 30_000
"""How long a panel test's ``expect`` waits: a shared 2-core machine can be slow; a hang still fails."""


@contextlib.asynccontextmanager
async def panel_page(
    browser: Browser,
    server: LiveServer,
    *,
    setup: Callable[[BrowserContext], Awaitable[None]] | None = None,
    **context_options: Any,
) -> AsyncIterator[tuple[Page, ConsoleWatch]]:
    """A page of a new browser context (1280×800; ``context_options`` for ``new_context``) on the panel with the
    token, once it is ready, and its console watch; the context is closed after. ``setup``: run on the context
    before its page opens (routes, a clock, init scripts)."""
    context = await browser.new_context(**{"viewport": DESKTOP, **context_options})
    try:
        if setup is not None:
            await setup(context)
        page = await context.new_page()
        watch = ConsoleWatch(page)
        await page.goto(server.panel_url)
        await expect(page.locator("body[data-ready]")).to_be_attached()
        yield page, watch
    finally:
        await context.close()


@pytest_asyncio.fixture(scope="module")
async def panel(pw_browser: Browser, server: LiveServer) -> AsyncIterator[tuple[Page, ConsoleWatch]]:
    """One panel page for a test module, on the module's ``server`` (a fixture of the module)."""
    expect.set_options(timeout=EXPECT_TIMEOUT_MS)
    try:
        async with panel_page(pw_browser, server) as opened:
            yield opened
    finally:
        expect.set_options(timeout=5_000)


@pytest_asyncio.fixture
async def page(panel: tuple[Page, ConsoleWatch]) -> AsyncIterator[Page]:
    """The module's panel page; the test fails on any console error it caused."""
    p, watch = panel
    yield p
    watch.check()


LIVE_FRAME = re.compile(r"/api/runs/[^/]+/live$")
"""The live view's URL: its 409 answers (no page yet, no picture right now, the run is over) are how the server
tells the panel to wait or to stop; test_panel_outcomes asserts what the panel does with them."""


class ConsoleWatch:
    """Every console error and uncaught exception of a page. ``expect(url_part)``: one failed request to a URL
    containing ``url_part`` is expected (the browser logs a 4xx answer as a console error). Failed live frames
    (``LIVE_FRAME``) are not errors."""

    def __init__(self, page: Page) -> None:
        self.errors: list[str] = []
        self.expected: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda exc: self.errors.append(f"uncaught: {exc}"))

    def _console(self, msg: ConsoleMessage) -> None:
        if msg.type != "error":
            return
        where = msg.location.get("url", "") if msg.location else ""
        if msg.text.startswith("Failed to load resource"):
            if LIVE_FRAME.search(where) and "status of 409" in msg.text:
                return
            for part in self.expected:
                if part in where:
                    self.expected.remove(part)
                    return
        self.errors.append(f"{msg.text} ({where})")

    def expect(self, url_part: str) -> None:
        self.expected.append(url_part)

    def check(self) -> None:
        errors, self.errors, self.expected = self.errors, [], []
        assert not errors, "console errors:\n" + "\n".join(errors)


async def snap(page: Page, folder: Path, name: str) -> list[Path]:
    """Screenshots of the current screen at 1280×800 and 390×844 (full page) into ``folder``, and into
    ``$KITE_PANEL_SHOTS`` when it is set (to look at them); at the phone size nothing may be wider than the
    screen."""
    keep = os.environ.get("KITE_PANEL_SHOTS")
    out = []
    for label, size in (("desktop", DESKTOP), ("phone", PHONE)):
        await page.set_viewport_size(size)
        overflow = await page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{name} at {label}: the page is {overflow}px wider than the screen"
        path = folder / f"{name}-{label}.png"
        # from the top: a full-page shot of a scrolled page draws the sticky top bar in its middle
        await page.evaluate("window.scrollTo(0, 0)")
        await page.screenshot(path=path, full_page=True)
        out.append(path)
        if keep:
            os.makedirs(keep, exist_ok=True)
            shutil.copy(path, os.path.join(keep, path.name))
    await page.set_viewport_size(DESKTOP)
    return out
