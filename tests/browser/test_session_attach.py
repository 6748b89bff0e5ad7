"""Attach mode: connect over CDP to a Chrome the user started; closing Kite never kills it."""

from __future__ import annotations

import json
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.browser.procs import chromium_descendants, read_proc
from kite_browser.agent.browser.session import AttachFailedError, BrowserSession
from kite_browser.agent.config import BrowserConfig
from tests.browser.test_session_profiles import wait_for
from tests.fixtures.browser import PagesServer


class UserChrome:
    def __init__(self, proc: subprocess.Popen[bytes], port: int) -> None:
        self.proc, self.port = proc, port
        self.endpoint = f"http://127.0.0.1:{port}"

    def targets(self) -> list[dict[str, str]]:
        with urllib.request.urlopen(self.endpoint + "/json/list", timeout=10) as resp:
            return [t for t in json.load(resp) if t.get("type") == "page"]


@pytest.fixture
def user_chrome(chromium_path: str, tmp_path: Path, pages_server: PagesServer) -> Iterator[UserChrome]:
    """A Chromium started the way a user would, with its own profile and one open page."""
    url = pages_server.add("/attach/user", "<title>user page</title>")
    profile = tmp_path / "user-profile"
    proc = subprocess.Popen(
        [
            chromium_path,
            "--headless",
            "--no-sandbox",
            f"--user-data-dir={profile}",
            "--remote-debugging-port=0",
            url,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    port_file = profile / "DevToolsActivePort"
    try:
        wait_for(
            lambda: port_file.is_file() and port_file.read_text().strip() != "", what="DevToolsActivePort"
        )
        chrome = UserChrome(proc, int(port_file.read_text().split()[0]))
        wait_for(lambda: any(t["url"] == url for t in chrome.targets()), what="the user's page")
        yield chrome
    finally:
        proc.terminate()
        proc.wait(timeout=30)


async def test_attach_uses_the_users_browser_and_close_only_disconnects(
    browser_config: BrowserConfig, user_chrome: UserChrome, pages_server: PagesServer
) -> None:
    user_url = pages_server.url("/attach/user")
    other_url = pages_server.add("/attach/kite", "<title>kite page</title>")
    processes_before = chromium_descendants(user_chrome.proc.pid)
    cfg = browser_config.model_copy(update={"attach": user_chrome.endpoint})
    session = await BrowserSession(cfg).start()
    assert session.mode == "attach"
    ctx = session.context
    assert ctx.page.url == user_url  # the default context is the user's, with the user's tab
    assert await ctx.page.title() == "user page"
    tab = await ctx.open_tab(other_url)  # a tab Kite opens in the user's browser stays there
    assert await tab.title() == "kite page"
    extra = await session.new_context()  # an isolated context Kite made: closed with the session
    await extra.page.goto(pages_server.add("/attach/extra", "<title>extra</title>"))
    assert len(user_chrome.targets()) == 3

    await session.close()
    await session.close()
    assert user_chrome.proc.poll() is None  # the user's browser still runs
    assert read_proc(user_chrome.proc.pid) is not None
    urls = sorted(t["url"] for t in user_chrome.targets())
    assert urls == sorted([user_url, other_url])  # its pages are alive; only Kite's own context is gone
    assert len(chromium_descendants(user_chrome.proc.pid)) >= len(processes_before) - 1

    # And it can be attached to again.
    async with BrowserSession(cfg) as again:
        assert {p.url for p in again.context.pages} == {user_url, other_url}
    assert user_chrome.proc.poll() is None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("scheme", ["http", "ws"])
async def test_attach_to_nothing_fails_fast(browser_config: BrowserConfig, scheme: str) -> None:
    endpoint = f"{scheme}://127.0.0.1:{free_port()}" + ("/devtools/browser/x" if scheme == "ws" else "")
    started = time.monotonic()
    with pytest.raises(AttachFailedError) as err:
        await BrowserSession(browser_config.model_copy(update={"attach": endpoint})).start()
    assert time.monotonic() - started < 10.0  # not the 30 s launch timeout (slack for a loaded machine)
    assert err.value.to_dict()["error"] == "attach_failed"
    assert err.value.to_dict()["endpoint"] == endpoint
    assert endpoint in err.value.message


async def test_attach_to_a_silent_port_fails_within_the_timeout(browser_config: BrowserConfig) -> None:
    with socket.socket() as server:  # accepts connections, never answers
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        endpoint = f"http://127.0.0.1:{server.getsockname()[1]}"
        cfg = browser_config.model_copy(update={"attach": endpoint, "launch_timeout_ms": 1500})
        started = time.monotonic()
        with pytest.raises(AttachFailedError, match="nothing answers"):
            await BrowserSession(cfg).start()
        assert time.monotonic() - started < 5.0


async def test_attach_to_a_web_server_that_is_not_chrome(
    browser_config: BrowserConfig, pages_server: PagesServer
) -> None:
    cfg = browser_config.model_copy(update={"attach": pages_server.url("/")})
    with pytest.raises(AttachFailedError):
        await BrowserSession(cfg).start()


async def test_attach_endpoint_must_be_a_url(browser_config: BrowserConfig) -> None:
    with pytest.raises(UsageError, match="invalid attach endpoint"):
        await BrowserSession(browser_config.model_copy(update={"attach": "localhost:9222"})).start()
