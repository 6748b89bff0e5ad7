"""Persistent profiles: a login survives a restart; a profile held by another Chrome fails fast."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.browser.procs import pid_alive
from kite_browser.agent.browser.profiles import check_profile_unlocked, lock_owner, profile_dir
from kite_browser.agent.browser.session import BrowserSession, ProfileLockedError
from kite_browser.agent.config import BrowserConfig
from kite_browser.evals.sites import SitesServer


def wait_for(cond, timeout: float = 60.0, what: str = "condition") -> None:  # type: ignore[no-untyped-def]
    """Poll ``cond`` (a state check, not a fixed sleep) until true or fail."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


async def test_login_and_storage_survive_a_restart(
    browser_config: BrowserConfig, sites: SitesServer, tmp_path: Path
) -> None:
    cfg = browser_config.model_copy(update={"profile": "shopper", "data_dir": str(tmp_path / "home")})
    async with BrowserSession(cfg) as session:
        assert session.mode == "profile"
        assert session.profile_path == tmp_path / "home" / "profiles" / "shopper"
        page = session.context.page
        await page.goto(sites.url("/account/login"))
        await page.fill("#email", "demo@kite.test")
        await page.fill("#password", "kite123")
        async with page.expect_navigation():
            await page.click("#login")
        assert await page.text_content("#user-email") == "demo@kite.test"
        await page.evaluate("localStorage.setItem('kite-note', 'remember me')")
        assert lock_owner(session.profile_path) is not None  # Chromium holds the profile
    assert session.profile_path is not None
    assert lock_owner(session.profile_path) is None  # released by a clean close

    async with BrowserSession(cfg) as again:
        page = again.context.page
        await page.goto(sites.url("/account/"))
        assert page.url == sites.url("/account/")  # not redirected to the login form
        assert await page.text_content("#user-email") == "demo@kite.test"
        assert await page.evaluate("localStorage.getItem('kite-note')") == "remember me"

    fresh = browser_config.model_copy(update={"data_dir": str(tmp_path / "home")})  # sandbox: logged out
    async with BrowserSession(fresh) as sandbox:
        page = sandbox.context.page
        await page.goto(sites.url("/account/"))
        assert page.url == sites.url("/account/login")


@pytest.fixture
def other_chrome(chromium_path: str, tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], Path]]:
    """Another Chromium holding the profile directory home/profiles/busy."""
    directory = tmp_path / "home" / "profiles" / "busy"
    directory.mkdir(parents=True)
    other = subprocess.Popen(
        [
            chromium_path,
            "--headless",
            "--no-sandbox",
            f"--user-data-dir={directory}",
            "--remote-debugging-port=0",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(lambda: lock_owner(directory) is not None, what="the other Chrome to lock its profile")
        yield other, directory
    finally:
        other.terminate()
        other.wait(timeout=30)


async def test_locked_profile_fails_fast(
    browser_config: BrowserConfig, other_chrome: tuple[subprocess.Popen[bytes], Path], tmp_path: Path
) -> None:
    other, directory = other_chrome
    cfg = browser_config.model_copy(update={"profile": "busy", "data_dir": str(tmp_path / "home")})
    started = time.monotonic()
    with pytest.raises(ProfileLockedError) as err:
        await BrowserSession(cfg).start()
    elapsed = time.monotonic() - started
    data = err.value.to_dict()
    assert data["error"] == "profile_locked"
    assert data["path"] == str(directory)
    assert str(directory) in err.value.message
    assert data["pid"] == other.pid
    assert elapsed < 10.0, elapsed  # not the 30 s launch timeout (slack for a loaded machine)
    assert other.poll() is None  # the other browser is untouched


def test_stale_lock_is_not_an_error(tmp_path: Path) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    assert not pid_alive(dead.pid)
    os.symlink(f"{socket.gethostname()}-{dead.pid}", tmp_path / "SingletonLock")
    check_profile_unlocked(tmp_path)  # a crash leftover: Chromium takes it over
    os.remove(tmp_path / "SingletonLock")
    os.symlink(f"{socket.gethostname()}-{os.getpid()}", tmp_path / "SingletonLock")
    with pytest.raises(ProfileLockedError):
        check_profile_unlocked(tmp_path)
    os.remove(tmp_path / "SingletonLock")
    os.symlink("other-host.example-4242", tmp_path / "SingletonLock")
    with pytest.raises(ProfileLockedError, match=r"other-host\.example"):
        check_profile_unlocked(tmp_path)


@pytest.mark.parametrize("name", ["../etc", "a/b", "", ".hidden", "x" * 65, "a..b"])
def test_bad_profile_names(name: str, tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        profile_dir(tmp_path, name)
    if name:  # an empty name means no profile: a sandbox
        with pytest.raises(UsageError):
            BrowserSession(BrowserConfig(profile=name, data_dir=str(tmp_path)))


def test_good_profile_name(tmp_path: Path) -> None:
    assert profile_dir(tmp_path, "work-2.main_x") == tmp_path / "profiles" / "work-2.main_x"
