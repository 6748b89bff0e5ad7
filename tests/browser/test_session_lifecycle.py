"""BrowserSession lifecycle: launch options, contexts, clean close, crashes and restart."""

from __future__ import annotations

import asyncio
import os
import re
import signal
from pathlib import Path

import pytest
from playwright.async_api import Error as PlaywrightError

from kite_browser.agent.base.errors import BrowserCrashedError, BrowserError, ChromiumNotFoundError
from kite_browser.agent.browser.procs import Proc, descendants, still_alive
from kite_browser.agent.browser.session import BrowserSession, ContextClosedError
from kite_browser.agent.config import BrowserConfig
from tests.fixtures.browser import PagesServer


def browser_process(session: BrowserSession) -> Proc:
    """The main Chromium process of ``session`` (a direct child of its driver, without --type=)."""
    assert session.driver_pid is not None
    mains = [p for p in descendants(session.driver_pid) if p.is_chromium and "--type=" not in p.cmdline]
    assert len(mains) == 1, mains
    return mains[0]


def user_data_dir(proc: Proc) -> Path:
    match = re.search(r"--user-data-dir=(\S+)", proc.cmdline)
    assert match, proc.cmdline
    return Path(match.group(1))


async def test_launch_options_are_applied(browser_config: BrowserConfig, pages_server: PagesServer) -> None:
    url = pages_server.add("/life/ua", "<title>ua</title>")
    cfg = browser_config.model_copy(
        update={"viewport_width": 900, "viewport_height": 640, "args": ["--user-agent=KiteTestAgent/1.0"]}
    )
    async with BrowserSession(cfg) as session:
        page = session.context.page
        await page.goto(url)
        size = await page.evaluate("[innerWidth, innerHeight, navigator.userAgent]")
        assert size == [900, 640, "KiteTestAgent/1.0"]
        assert "--user-agent=KiteTestAgent/1.0" in browser_process(session).cmdline
        assert "--headless" in browser_process(session).cmdline
        # block_external_hosts: every name but 127.0.0.1 fails to resolve, at once.
        with pytest.raises(PlaywrightError, match="ERR_NAME_NOT_RESOLVED"):
            await page.goto("http://example.com/", timeout=10000)


async def test_default_viewport(browser_session: BrowserSession) -> None:
    ctx = await browser_session.new_context()
    try:
        assert ctx.page.viewport_size == {"width": 1280, "height": 800}
    finally:
        await ctx.close()


async def test_close_leaves_no_process_and_no_profile(browser_config: BrowserConfig) -> None:
    session = await BrowserSession(browser_config).start()
    assert session.mode == "sandbox" and session.is_alive
    assert session.driver_pid is not None
    procs = descendants(session.driver_pid)
    main = browser_process(session)
    profile = user_data_dir(main)
    assert profile.is_dir()
    assert len([p for p in procs if p.is_chromium]) >= 2  # browser + zygote/gpu/renderers
    driver = session.driver_pid
    await session.close()
    await session.close()  # idempotent
    assert not session.is_alive
    assert still_alive(procs) == []
    assert descendants(driver) == []
    assert not profile.exists()  # the sandbox's temporary user-data-dir is gone
    with pytest.raises(BrowserError):
        await session.new_context()
    with pytest.raises(ContextClosedError):
        _ = session.context.page


async def test_missing_chromium_is_typed(browser_config: BrowserConfig) -> None:
    cfg = browser_config.model_copy(update={"chromium_path": "/nonexistent/chromium"})
    with pytest.raises(ChromiumNotFoundError) as err:
        await BrowserSession(cfg).start()
    assert err.value.to_dict()["error"] == "chromium_not_found"
    assert "/nonexistent/chromium" in err.value.message


async def test_contexts_are_isolated_and_parallel(
    browser_session: BrowserSession, pages_server: PagesServer
) -> None:
    url = pages_server.add("/life/cookie", "<title>c</title>")
    a, b = await asyncio.gather(browser_session.new_context(), browser_session.new_context())
    try:
        await asyncio.gather(a.page.goto(url), b.page.goto(url))
        await a.page.evaluate("document.cookie = 'who=a'")
        assert await a.page.evaluate("document.cookie") == "who=a"
        assert await b.page.evaluate("document.cookie") == ""
        assert a in browser_session.contexts and b in browser_session.contexts
    finally:
        await a.close()
        await b.close()
    assert a not in browser_session.contexts


async def test_crashed_tab_raises_typed_error(
    browser_session: BrowserSession, pages_server: PagesServer
) -> None:
    url = pages_server.add("/life/ok", "<title>ok</title>")
    ctx = await browser_session.new_context()
    try:
        healthy = ctx.page
        await healthy.goto(url)
        doomed = await ctx.open_tab(url)
        async with doomed.expect_event("crash"):
            with pytest.raises(PlaywrightError):
                await doomed.goto("chrome://crash", timeout=10000)
        with pytest.raises(BrowserCrashedError) as err:
            _ = ctx.page
        assert err.value.to_dict()["error"] == "browser_crashed"
        assert err.value.to_dict()["tab"] == 1
        assert ctx.drain_events().crashed
        assert await ctx.switch_tab(0) is healthy  # the rest of the context still works
        assert await ctx.page.title() == "ok"
        assert browser_session.is_alive
    finally:
        await ctx.close()


async def test_killed_browser_raises_then_restarts(
    browser_config: BrowserConfig, pages_server: PagesServer
) -> None:
    url = pages_server.add("/life/restart", "<title>again</title>")
    async with BrowserSession(browser_config) as session:
        extra = await session.new_context()
        main = browser_process(session)
        disconnected = asyncio.get_running_loop().create_future()
        assert session.browser is not None
        session.browser.on("disconnected", lambda _b: disconnected.done() or disconnected.set_result(True))
        os.kill(main.pid, signal.SIGKILL)
        await asyncio.wait_for(disconnected, 30)
        assert not session.is_alive
        for ctx in (session.context, extra):
            with pytest.raises(BrowserCrashedError):
                _ = ctx.page
            assert ctx.drain_events().crashed
        with pytest.raises(BrowserCrashedError):
            await session.new_context()

        await session.restart()
        assert session.is_alive
        assert browser_process(session).pid != main.pid
        for ctx in (session.context, extra):  # the same objects work again
            await ctx.page.goto(url)
            assert await ctx.page.title() == "again"
        assert still_alive([main]) == []


async def test_restart_of_a_healthy_session(browser_config: BrowserConfig, pages_server: PagesServer) -> None:
    url = pages_server.add("/life/healthy", "<title>healthy</title>")
    async with BrowserSession(browser_config) as session:
        old = browser_process(session)
        await session.restart()
        await session.context.page.goto(url)
        assert await session.context.page.title() == "healthy"
        assert still_alive([old]) == []


@pytest.mark.skipif(
    bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")), reason="a display exists"
)
async def test_headed_without_a_display_is_a_typed_launch_error(browser_config: BrowserConfig) -> None:
    cfg = browser_config.model_copy(update={"headless": False})
    session = BrowserSession(cfg)
    with pytest.raises(BrowserError) as err:
        await session.start()
    assert err.value.to_dict()["error"] == "launch_failed"
    assert session.driver_pid is None  # the driver was stopped again
    assert not session.is_alive


async def test_profile_session_restarts_after_a_kill(
    browser_config: BrowserConfig, pages_server: PagesServer, tmp_path: Path
) -> None:
    url = pages_server.add("/life/profile", "<title>profile back</title>")
    cfg = browser_config.model_copy(update={"profile": "crashy", "data_dir": str(tmp_path / "home")})
    async with BrowserSession(cfg) as session:
        main = browser_process(session)
        assert user_data_dir(main) == session.profile_path
        closed = asyncio.get_running_loop().create_future()
        session.context.context.on("close", lambda _c: closed.done() or closed.set_result(True))
        os.kill(main.pid, signal.SIGKILL)
        await asyncio.wait_for(closed, 30)
        with pytest.raises(BrowserCrashedError):
            _ = session.context.page
        await session.restart()  # the dead browser's SingletonLock is stale: no profile_locked
        await session.context.page.goto(url)
        assert await session.context.page.title() == "profile back"
