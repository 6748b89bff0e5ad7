"""Ctrl-C and SIGTERM as a user sends them, to a real ``kite`` subprocess, while two tasks are provably in
flight and one of them loses the cancel (tests/batch/holder.py: how an interrupted task used to be recorded
as failed, ``context_closed``). ``kite batch`` keeps only the tasks that finished, so the interrupted ones run
again on resume; ``kite eval`` reports only the tasks that finished. The signal is sent once the holder has
printed its marks (no sleeps)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path
from typing import IO

import pytest

from tests.batch.conftest import write_tasks
from tests.batch.holder import HOLD_ENV, LOSE, MARK, RELEASE
from tests.batch.test_cli import TIMEOUT_S, env, ids_in, kite

pytestmark = [pytest.mark.slow, pytest.mark.timeout(480)]

IN_FLIGHT = [
    {"id": "release", "task": f"release {RELEASE}", "start_url": "{sites}/shop/", "model": "kite/holder"},
    {"id": "lose", "task": f"lose {LOSE}", "start_url": "{sites}/shop/", "model": "kite/holder"},
]
"""Held in their first model call until the signal; ``release`` must come first (holder.py)."""


def _start(argv: list[str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        argv,
        cwd=cwd,
        env=env(**{HOLD_ENV: "1"}),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a process group of its own, as a terminal's foreground job
    )


def _read_until(stream: IO[str] | None, *wanted: str) -> None:
    """Read lines until each of ``wanted`` has started one (the process has reached that point)."""
    assert stream is not None
    missing, seen = list(wanted), []
    for line in stream:
        seen.append(line)
        missing = [w for w in missing if not line.startswith(w)]
        if not missing:
            return
    raise AssertionError(f"kite ended before printing {missing}:\n{''.join(seen)[-3000:]}")


def _interrupt(proc: subprocess.Popen[str], sig: signal.Signals, group: bool) -> str:
    """Ctrl-C reaches the terminal's whole foreground group (kite and its Playwright driver; Chromium has
    its own); ``kill PID`` only kite. Returns kite's stderr."""
    try:
        if group:
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return err


def _batch(tmp_path: Path, cli_config: Path) -> list[str]:
    tasks = write_tasks(
        tmp_path / "tasks.yaml",
        [{"id": "quick", "task": "quick look [steps=1]", "start_url": "{sites}/shop/"}, *IN_FLIGHT],
    )
    argv = kite("--config", str(cli_config), "batch", str(tasks), "--out", str(tmp_path / "results.jsonl"),
                "--model", "kite/steps", "--concurrency", "3", "--runs-dir", str(tmp_path / "runs"),
                cwd=tmp_path)  # fmt: skip
    return argv


def _until_in_flight(proc: subprocess.Popen[str]) -> None:
    """Until quick's line (printed after its result is written) and both marks (the others are in flight)."""
    _read_until(proc.stderr, "✓ quick", f"{MARK} release", f"{MARK} lose")


def _only_quick_kept(out: Path) -> None:
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    # nothing else: an interrupted task is not a failure, nor a result at all
    assert [(r["id"], r["stop_reason"], r["error"]) for r in rows] == [("quick", "done", None)], rows


def test_ctrl_c_in_batch_records_no_in_flight_task_and_resume_runs_them(
    tmp_path: Path, cli_config: Path
) -> None:
    out, argv = tmp_path / "results.jsonl", _batch(tmp_path, cli_config)
    first = _start(argv, tmp_path)
    try:
        _until_in_flight(first)
    finally:
        err = _interrupt(first, signal.SIGINT, group=True)
    assert first.returncode == 130, err
    assert "kite: interrupted" in err
    _only_quick_kept(out)

    second = subprocess.run(argv, cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=TIMEOUT_S)
    assert second.returncode == 0, second.stderr
    assert f"resuming {out}: 1 of 3 task(s) already finished" in second.stderr
    assert sorted(ids_in(out)) == ["lose", "quick", "release"], "every id exactly once"


def test_sigterm_in_batch_records_no_in_flight_task(tmp_path: Path, cli_config: Path) -> None:
    first = _start(_batch(tmp_path, cli_config), tmp_path)
    try:
        _until_in_flight(first)
    finally:
        err = _interrupt(first, signal.SIGTERM, group=False)
    assert first.returncode == 130, err
    assert "kite: interrupted" in err
    _only_quick_kept(tmp_path / "results.jsonl")


def test_interrupted_eval_reports_only_finished_tasks(tmp_path: Path, cli_config: Path) -> None:
    suite = write_tasks(
        tmp_path / "suite.yaml",
        [
            {"id": "e0", "task": "e0 look [steps=1]", "start_url": "{sites}/shop/"},
            *IN_FLIGHT,
            {"id": "e3", "task": "e3 look", "start_url": "{sites}/shop/"},
        ],
    )
    report = tmp_path / "report.json"
    argv = kite("--config", str(cli_config), "eval", str(suite), "--model", "kite/steps", "--json", str(report),
                "--md", str(tmp_path / "report.md"), "--concurrency", "3", "--runs-dir", str(tmp_path / "runs"),
                cwd=tmp_path)  # fmt: skip
    proc = _start(argv, tmp_path)
    try:
        _read_until(proc.stdout, "[1] ")  # e0 finished (printed after its result is kept)
        _read_until(proc.stderr, f"{MARK} release", f"{MARK} lose")
    finally:
        err = _interrupt(proc, signal.SIGTERM, group=False)
    assert proc.returncode == 130, err
    assert "interrupted" in err
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["interrupted"] and data["planned"] == 4 and data["n"] == 1, data
    assert [(t["id"], t["success"], t["stop_reason"]) for t in data["tasks"]] == [("e0", True, "done")]
    assert "of 4 tasks finished" in (tmp_path / "report.md").read_text(encoding="utf-8")
