"""``kite snapshot``: one browser for several URLs, text and JSON-lines output."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import pytest

from kite_browser.agent.commands.snapshot import ALL_HEADING
from tests.browser.pages.server import serve
from tests.fixtures.browser import OFFLINE_ARGS
from tests.kite_cli import run_kite


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with serve() as urls:
        yield urls[0]


def kite(*args: str) -> subprocess.CompletedProcess[str]:
    """``kite snapshot ARGS`` (in this process: what it prints is the test, not the process; tests/kite_cli.py)."""
    return run_kite("snapshot", *args, f"--browser-arg={OFFLINE_ARGS[0]}")


def test_json_lines_for_two_urls(base: str) -> None:
    proc = kite("--json", "--viewport", "1024x700", f"{base}/basic.html", f"{base}/shadow.html")
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(x) for x in proc.stdout.splitlines()]
    assert [x["url"] for x in lines] == [f"{base}/basic.html", f"{base}/shadow.html"]
    first = lines[0]
    assert first["summary"]["viewport"] == {"width": 1024, "height": 700}
    el = next(e for e in first["elements"] if e["name"] == "Place order")
    assert {"index", "tag", "role", "name", "rect", "in_viewport", "frame"} <= set(el)
    assert set(el["rect"]) == {"x", "y", "width", "height"}
    assert f'[{el["index"]}] button "Place order"' in first["text"]
    assert first["tokens"] > 50 and first["timings"]["extract_ms"] > 0
    assert not any(e["name"] == "Far below" for e in first["elements"])


def test_text_all_and_bad_url(base: str) -> None:
    proc = kite("--all", f"{base}/basic.html")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("URL: ") and 'button "Far below"' in proc.stdout
    assert f"\n{ALL_HEADING}\n" in proc.stdout  # says which layout this is, and what the other one is
    bad = kite("--json", "http://127.0.0.1:9/nothing")
    assert bad.returncode == 1 and json.loads(bad.stdout)["error"]["error"] == "navigation_failed"


def test_text_names_the_cli_flag_for_what_is_off_screen(base: str) -> None:
    proc = kite(f"{base}/basic.html")
    assert proc.returncode == 0, proc.stderr
    assert "Viewport in reading order" in proc.stdout and 'button "Far below"' not in proc.stdout
    last = proc.stdout.strip().splitlines()[-1]
    assert last.startswith("… ") and last.endswith("more below (kite snapshot --all lists them)"), last
    assert "getElements" not in proc.stdout


def test_the_command_module_loads_without_playwright() -> None:
    # every kite command imports all command modules at startup: Playwright must load only in run()
    code = "import sys, kite_browser.agent.commands.snapshot; print([m for m in sys.modules if m.startswith('playwright')])"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
