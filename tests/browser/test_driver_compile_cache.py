"""The Playwright driver keeps Node's compiled code between starts (``NODE_COMPILE_CACHE``) in the user's cache
folder, unless the user chose another folder; a folder it cannot write costs nothing but the saving."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kite_browser.agent.browser.driver import start_driver
from kite_browser.agent.config import node_compile_cache_dir

VAR = "NODE_COMPILE_CACHE"


@pytest.fixture
def no_cache_var(monkeypatch: pytest.MonkeyPatch) -> None:
    """NODE_COMPILE_CACHE unset for the test, and put back as it was afterwards (whatever the driver set)."""
    monkeypatch.setenv(VAR, "recorded")  # makes monkeypatch restore the variable's state before the test
    monkeypatch.delenv(VAR)
    monkeypatch.delenv("NODE_DISABLE_COMPILE_CACHE", raising=False)


async def _start_and_stop() -> None:
    _, pw = await start_driver()
    try:
        assert pw.chromium.name == "chromium"  # the driver answered
    finally:
        await pw.stop()


def _files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()]


def test_the_folder_is_the_users_cache_folder(tmp_path: Path) -> None:
    assert (
        node_compile_cache_dir({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "kite" / "node-compile-cache"
    )
    assert node_compile_cache_dir({}) == Path.home() / ".cache" / "kite" / "node-compile-cache"


async def test_a_driver_start_fills_kites_cache_folder(
    no_cache_var: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    folder = tmp_path / "kite" / "node-compile-cache"
    await _start_and_stop()
    assert os.environ[VAR] == str(folder)
    assert _files(folder), "Node wrote no compiled code"


async def test_the_users_own_folder_is_kept(
    no_cache_var: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv(VAR, str(tmp_path / "mine"))
    await _start_and_stop()
    assert os.environ[VAR] == str(tmp_path / "mine")
    assert _files(tmp_path / "mine") and not (tmp_path / "xdg").exists()


async def test_a_folder_node_cannot_write_still_starts_the_driver(
    no_cache_var: None, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(VAR, "/proc/kite-cannot-write-here")
    await _start_and_stop()
    assert "compile" not in capfd.readouterr().err.lower()
