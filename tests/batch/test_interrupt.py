"""Ctrl-C and SIGTERM as a user sends them, to a real ``kite`` subprocess (tests/batch/kite_fake.py: the
``kite/steps`` fake answers after 0.3 s): ``kite batch`` keeps only finished tasks, so an interrupted one runs
again on resume; ``kite eval`` writes a partial report of the tasks that finished."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.batch.conftest import write_tasks
from tests.batch.test_cli import TIMEOUT_S, env, ids_in, kite

pytestmark = [pytest.mark.slow, pytest.mark.timeout(480)]


def _start(argv: list[str], cwd: Path, **extra_env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        argv,
        cwd=cwd,
        env=env(**extra_env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a process group of its own, as a terminal's foreground job
    )


def test_ctrl_c_in_batch_records_no_in_flight_task_and_resume_runs_it(
    tmp_path: Path, cli_config: Path
) -> None:
    ids = ["quick", "held", "later-1", "later-2"]
    tasks = write_tasks(
        tmp_path / "tasks.yaml",
        [
            {"id": "quick", "task": "quick look", "start_url": "{sites}/shop/"},
            # its second model call is certainly in flight at Ctrl-C (tests/batch/holder.py)
            {"id": "held", "task": "held look", "start_url": "{sites}/shop/", "model": "kite/holder"},
            {"id": "later-1", "task": "later one", "start_url": "{sites}/shop/"},
            {"id": "later-2", "task": "later two", "start_url": "{sites}/shop/"},
        ],
    )
    out, hold = tmp_path / "results.jsonl", tmp_path / "holding"
    argv = kite("--config", str(cli_config), "batch", str(tasks), "--out", str(out), "--model", "kite/steps",
                "--concurrency", "2", "--runs-dir", str(tmp_path / "runs"), cwd=tmp_path)  # fmt: skip
    first = _start(argv, tmp_path, KITE_TEST_HOLD_FILE=str(hold))
    try:
        assert first.stderr is not None
        for line in first.stderr:  # printed after the task's result is written
            if line.startswith(("✓", "✗")):
                break
        deadline = time.monotonic() + 120
        while not hold.exists() and time.monotonic() < deadline and first.poll() is None:
            time.sleep(0.05)  # polling a condition with a deadline, not a fixed wait
        assert hold.exists(), "the held task never reached its second model call"
        # Ctrl-C reaches the whole foreground group: kite, its Playwright driver and Chromium.
        os.killpg(first.pid, signal.SIGINT)
        _, err = first.communicate(timeout=120)
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
            first.wait()
    assert first.returncode == 130, err
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert "held" not in [r["id"] for r in rows], rows
    assert 1 <= len(rows) < len(ids), rows
    for r in rows:  # no interrupted task was recorded, as failed or otherwise
        assert r["success"] and r["stop_reason"] == "done" and r["error"] is None, r

    second = subprocess.run(
        argv, cwd=tmp_path, env=env(KITE_TEST_HOLD_FILE=str(hold)), capture_output=True, text=True,
        timeout=TIMEOUT_S,
    )  # fmt: skip
    assert second.returncode == 0, second.stderr
    assert f"resuming {out}: {len(rows)} of 4 task(s) already finished" in second.stderr
    assert sorted(ids_in(out)) == sorted(ids), "every id exactly once"


def test_sigterm_during_eval_writes_a_partial_report(tmp_path: Path, cli_config: Path) -> None:
    suite = write_tasks(
        tmp_path / "suite.yaml",
        [{"id": f"e{i}", "task": f"e{i} look [steps=3]", "start_url": "{sites}/shop/"} for i in range(5)],
    )
    report = tmp_path / "report.json"
    argv = kite("--config", str(cli_config), "eval", str(suite), "--model", "kite/steps", "--json", str(report),
                "--md", str(tmp_path / "report.md"), "--runs-dir", str(tmp_path / "runs"), cwd=tmp_path)  # fmt: skip
    proc = _start(argv, tmp_path)
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("[1] "):
                break
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, err
    assert "interrupted" in err
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["interrupted"] and data["planned"] == 5 and 1 <= data["n"] < 5, data
    assert [t["id"] for t in data["tasks"]] == [f"e{i}" for i in range(data["n"])]
    assert all(t["success"] and t["stop_reason"] == "done" for t in data["tasks"])
    assert "of 5 tasks finished" in (tmp_path / "report.md").read_text(encoding="utf-8")
