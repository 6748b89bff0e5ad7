"""``kite run`` redirected to a file, as in ``kite run ... > out.log``: plain text, one line per step, nothing
wrapped (no URL or number broken across lines), no escape codes; with ``--json`` stdout is the JSON alone and
the same plain lines go to stderr. Stdin is not a terminal, so a click that needs confirmation is refused, and
the refusal says so (not "batch mode"). The real CLI (in the test's process, tests/kite_cli.py: stdout an open
file, stdin empty, neither a terminal), a real browser; only the model is scripted."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.fixtures.browser import PagesServer
from tests.kite_cli import run_kite

pytestmark = pytest.mark.timeout(300)  # a whole `kite run`, on a machine that may be busy
PAGE = """<!doctype html><meta charset=utf-8><title>Old notes</title>
<p>Notes can be permanently deleted.</p>
<button id=inc onclick="this.textContent='opened'">Open the archive</button>
<button id=del onclick="this.textContent='deleted'">Permanently delete</button>"""
SCRIPT = [
    {"name": "click", "arguments": {"selector": "#inc"}},
    {"name": "click", "arguments": {"selector": "#del"}},
    {"name": "done", "arguments": {"success": False, "answer": "could not delete them"}},
]


def kite_run(tmp_path: Path, url: str, *extra: str) -> tuple[subprocess.CompletedProcess[str], str]:
    log = tmp_path / "out.log"
    args = ["run", "delete my old notes", "--model", "kite/scripted", "--start-url", url, *extra]
    env = {"COLUMNS": "80", "KITE_RUNS_DIR": str(tmp_path / "runs"), "KITE_HOME": str(tmp_path / "home")}
    with log.open("w") as out:  # a file, as `> out.log` gives
        proc = run_kite(*args, script=SCRIPT, env=env, stdout=out)
    return proc, log.read_text(encoding="utf-8")


def check_step_lines(text: str, url: str) -> list[str]:
    assert "\x1b[" not in text, "escape codes in a log"
    lines = text.splitlines()
    steps = [line for line in lines if line.startswith("step ")]
    assert [s.split(" ", 2)[1] for s in steps] == ["1", "2", "3"], text
    for line in steps:  # the whole URL and the token count on the step's own line
        assert f" · {url} · " in line and line.endswith(" tok"), line
    assert len(lines) == len(set(lines)), "a line repeated"
    refused = steps[1]
    assert '✓ click selector="#inc" (auto) → ok' in steps[0], steps[0]
    assert '✗ click selector="#del" (confirm) → error declined: not confirmed: ' in refused, refused
    assert "nobody could be asked (stdin is not a terminal)" in refused, refused
    assert "--approve confirm or --approve click" in refused and "batch" not in refused, refused
    (summary,) = [line for line in lines if line.startswith("  declined at step 2: ")]
    assert "Permanently delete" in summary and "nobody could be asked" in summary, summary
    return lines


def test_kite_run_into_a_file_writes_one_plain_line_per_step(tmp_path: Path, pages_server: PagesServer):
    url = pages_server.add("/notes", PAGE) + "?from=" + "1234567890" * 12
    proc, log = kite_run(tmp_path, url)
    assert proc.returncode == 1, proc.stderr
    lines = check_step_lines(log, url)
    assert lines[0].startswith("kite delete my old notes · model kite/scripted · record ")
    assert "answer: could not delete them" in lines and "Traceback" not in proc.stderr


def test_kite_run_json_keeps_stdout_for_the_json(tmp_path: Path, pages_server: PagesServer):
    url = pages_server.add("/notes", PAGE) + "?from=" + "1234567890" * 12
    proc, out = kite_run(tmp_path, url, "--json")
    assert proc.returncode == 1, proc.stderr
    (line,) = out.splitlines()
    result = json.loads(line)
    assert result["steps"] == 3 and result["answer"] == "could not delete them"
    check_step_lines(proc.stderr, url)
