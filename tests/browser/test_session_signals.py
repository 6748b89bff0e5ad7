"""No Chromium outlives the Python process: SIGTERM (with and without install_signal_cleanup), Ctrl-C,
SIGKILL. Each case runs a real session in a subprocess (its own process group) and checks that every
process below it is gone afterwards; processes are identified by (pid, start time), so the check only
ever sees this test's own Chromium even while other Chromiums run on the machine."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from kite_browser.agent.browser.procs import Proc, descendants, still_alive, with_env
from kite_browser.agent.config import BrowserConfig
from tests.browser.test_session_profiles import wait_for

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import asyncio, json, sys
from kite_browser.agent.browser.procs import descendants
from kite_browser.agent.browser.session import BrowserSession, install_signal_cleanup
from kite_browser.agent.config import BrowserConfig

async def main():
    cfg = BrowserConfig.model_validate_json(sys.argv[1])
    async with BrowserSession(cfg) as session:
        if sys.argv[2] == "handler":
            install_signal_cleanup(session)
        await session.context.page.goto("about:blank")
        chromium = [p.pid for p in descendants(session.driver_pid) if p.is_chromium]
        print(json.dumps({"driver": session.driver_pid, "chromium": chromium}), flush=True)
        await asyncio.Event().wait()

asyncio.run(main())
"""


def user_data_dir(tree: list[Proc]) -> Path:
    dirs = {m.group(1) for p in tree if (m := re.search(r"--user-data-dir=(\S+)", p.cmdline))}
    assert len(dirs) == 1, dirs
    return Path(dirs.pop())


def run_and_signal(
    cfg: BrowserConfig, tmp_path: Path, how: str, sig: signal.Signals, group: bool
) -> tuple[int, list[Proc]]:
    script = tmp_path / "session_script.py"
    script.write_text(SCRIPT)
    marker = uuid.uuid4().hex  # inherited by every process the child starts, daemonized ones included
    child = subprocess.Popen(
        [sys.executable, str(script), cfg.model_dump_json(), how],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "KITE_TEST_MARKER": marker},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line, child.stderr.read().decode() if child.stderr else "no output"
        info = json.loads(line)
        tree = descendants(child.pid)
        # The tree, plus processes that left it but kept the environment (crashpad handlers daemonize).
        family = [p for p in with_env("KITE_TEST_MARKER", marker) if p.pid != child.pid]
        tree += [p for p in family if p.pid not in {t.pid for t in tree}]
        assert len(info["chromium"]) >= 2
        assert {p.pid for p in tree} >= set(info["chromium"]) | {info["driver"]}
        if group:
            os.killpg(child.pid, sig)  # what a terminal's Ctrl-C does: the whole foreground group
        else:
            os.kill(child.pid, sig)
        code = child.wait(timeout=60)
        wait_for(lambda: not still_alive(tree), timeout=60, what="the session's processes to exit")
        assert with_env("KITE_TEST_MARKER", marker) == []  # nothing escaped either
        return code, tree
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()


@pytest.fixture
def cfg(browser_config: BrowserConfig, tmp_path: Path) -> BrowserConfig:
    return browser_config.model_copy(update={"data_dir": str(tmp_path / "home")})


def test_sigterm_without_handler(cfg: BrowserConfig, tmp_path: Path) -> None:
    code, tree = run_and_signal(cfg, tmp_path, "plain", signal.SIGTERM, group=False)
    assert code == -signal.SIGTERM
    assert still_alive(tree) == []
    assert not user_data_dir(tree).exists()  # Playwright's driver removed the sandbox profile too


def test_sigterm_without_handler_releases_the_profile(cfg: BrowserConfig, tmp_path: Path) -> None:
    cfg = cfg.model_copy(update={"profile": "plain"})
    code, tree = run_and_signal(cfg, tmp_path, "plain", signal.SIGTERM, group=False)
    assert code == -signal.SIGTERM
    assert still_alive(tree) == []
    profile = user_data_dir(tree)
    assert profile == tmp_path / "home" / "profiles" / "plain"
    assert not (profile / "SingletonLock").is_symlink()  # Chromium was closed, not left holding it


def test_sigterm_with_signal_cleanup_closes_the_profile(cfg: BrowserConfig, tmp_path: Path) -> None:
    cfg = cfg.model_copy(update={"profile": "sig"})
    code, tree = run_and_signal(cfg, tmp_path, "handler", signal.SIGTERM, group=False)
    assert code == -signal.SIGTERM  # it still dies of SIGTERM, after closing
    assert still_alive(tree) == []
    assert not (user_data_dir(tree) / "SingletonLock").is_symlink()


def test_ctrl_c_to_the_process_group(cfg: BrowserConfig, tmp_path: Path) -> None:
    started = time.monotonic()
    code, tree = run_and_signal(cfg, tmp_path, "plain", signal.SIGINT, group=True)
    assert code != 0
    assert still_alive(tree) == []
    assert not user_data_dir(tree).exists()
    assert time.monotonic() - started < 60


def test_sigint_to_python_only(cfg: BrowserConfig, tmp_path: Path) -> None:
    code, tree = run_and_signal(cfg, tmp_path, "plain", signal.SIGINT, group=False)
    assert code != 0  # KeyboardInterrupt: asyncio.run cancels main(), `async with` closes the session
    assert still_alive(tree) == []
    assert not user_data_dir(tree).exists()


def test_sigkill(cfg: BrowserConfig, tmp_path: Path) -> None:
    code, tree = run_and_signal(cfg, tmp_path, "plain", signal.SIGKILL, group=False)
    assert code == -signal.SIGKILL
    assert still_alive(tree) == []  # the driver sees its stdin close and closes Chromium
    assert not user_data_dir(tree).exists()
