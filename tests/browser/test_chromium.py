"""Finding Chromium: explicit paths, the system one, and the typed error that says how to install one."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from kite_browser.agent.base.errors import ChromiumNotFoundError
from kite_browser.agent.browser import chromium


@pytest.fixture
def no_chromium(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A machine without any Chromium: no system candidates, empty PATH, no Playwright download."""
    monkeypatch.setattr(chromium, "SYSTEM_CANDIDATES", ())
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path / "no-browsers"))


def test_missing_chromium_says_how_to_install(no_chromium: None) -> None:
    assert chromium.find_chromium() is None
    with pytest.raises(ChromiumNotFoundError) as err:
        chromium.require_chromium()
    message = err.value.message
    assert err.value.to_dict()["error"] == "chromium_not_found"
    assert "apt-get install -y chromium" in message
    assert "playwright install chromium" in message
    assert "KITE_CHROMIUM" in message


def test_cli_reports_missing_chromium(no_chromium: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert chromium.main([]) == 1
    assert "no Chromium found" in capsys.readouterr().err


def test_explicit_path_must_exist(tmp_path: Path) -> None:
    with pytest.raises(ChromiumNotFoundError, match="does not exist"):
        chromium.find_chromium(str(tmp_path / "nope"))
    not_exec = tmp_path / "chrome.txt"
    not_exec.write_text("")
    with pytest.raises(ChromiumNotFoundError):
        chromium.find_chromium(str(not_exec))


def test_explicit_path_and_path_lookup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "bin" / "chromium"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    assert chromium.find_chromium(str(fake)) == str(fake)
    monkeypatch.setattr(chromium, "SYSTEM_CANDIDATES", ())
    monkeypatch.setenv("PATH", str(fake.parent))
    assert chromium.find_chromium() == str(fake)


def test_playwright_download_is_the_last_resort(no_chromium: None, tmp_path: Path) -> None:
    exe = tmp_path / "no-browsers" / "chromium-1234" / "chrome-linux64" / "chrome"
    exe.parent.mkdir(parents=True)
    exe.write_text("")
    exe.chmod(0o755)
    assert chromium.find_chromium() == str(exe)


@pytest.mark.skipif(not os.access("/usr/bin/chromium", os.X_OK), reason="no system Chromium here")
def test_system_chromium_is_found() -> None:
    assert chromium.require_chromium() == "/usr/bin/chromium"
