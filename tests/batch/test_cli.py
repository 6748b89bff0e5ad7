"""``kite batch`` as a user runs it: a real subprocess (tests/batch/kite_fake.py registers ``kite/steps`` with
0.3 s latency), SIGKILLed halfway and resumed; exit codes and the summary (in the test's process,
tests/kite_cli.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.batch.conftest import write_tasks
from tests.batch.fakes import StepsModel
from tests.kite_cli import run_kite

# Each subprocess imports litellm and loads tokenizer tables: seconds of CPU on a loaded machine.
pytestmark = pytest.mark.timeout(480)

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 240
"""How long a real ``kite batch`` process may take (the interrupt and Ray driver tests start one)."""


def kite(*args: str, cwd: Path) -> list[str]:
    return [sys.executable, "-m", "tests.batch.kite_fake", *args]


def env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200", **extra}


def ids_in(path: Path) -> list[str]:
    return [json.loads(line)["id"] for line in path.read_text().splitlines()]


def test_sigkill_halfway_then_resume_runs_every_task_exactly_once(
    tmp_path: Path, cli_config: Path, steps_model: StepsModel
) -> None:
    """The killed run is a real process (its whole group is SIGKILLed); the resume, whose output and results
    file are the test, runs in this process (tests/kite_cli.py)."""
    ids = [f"task-{i}" for i in range(6)]
    tasks = write_tasks(
        tmp_path / "tasks.yaml",
        [
            {"id": i, "task": f"{i} look around", "start_url": "{sites}/shop/", "check": {"url": "/shop/"}}
            for i in ids
        ],
    )
    out = tmp_path / "results.jsonl"
    argv = kite(
        "--config",
        str(cli_config),
        "batch",
        str(tasks),
        "--out",
        str(out),
        "--model",
        "kite/steps",
        "--concurrency",
        "2",
        cwd=tmp_path,
    )
    first = subprocess.Popen(
        argv,
        cwd=tmp_path,
        env=env(),
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    finished: list[str] = []
    try:
        assert first.stderr is not None
        for line in first.stderr:  # one line per finished task, printed after its result is written
            if line.startswith(("✓", "✗")):
                finished.append(line.split()[1])
                if len(finished) == 2:
                    break
        os.killpg(first.pid, signal.SIGKILL)  # the runner, its Playwright driver and Chromium
    finally:
        first.wait(timeout=30)
    assert first.returncode == -signal.SIGKILL
    assert len(finished) == 2, f"the runner ended before two tasks finished: {finished}"
    before = out.read_text()
    assert set(finished) <= set(ids_in(out)) and len(ids_in(out)) < len(ids)
    with out.open("a") as f:  # as if the kill had landed in the middle of a write
        f.write('{"id": "task-5", "success": tr')

    second = run_kite(*argv[3:], cwd=tmp_path, env={"COLUMNS": "200"})
    assert second.returncode == 0, second.stderr
    assert "the last line was cut off" in second.stderr
    assert f"resuming {out}: {len(before.splitlines())} of 6 task(s) already finished" in second.stderr
    after = out.read_text()
    assert after.startswith(before), "earlier results were changed"
    assert sorted(ids_in(out)) == ids, "every id exactly once"
    rows = [json.loads(line) for line in after.splitlines()]
    assert all(r["success"] and r["check"]["passed"] for r in rows)
    assert "6/6 succeeded" in second.stdout


def test_exit_code_summary_and_approve_flag(
    tmp_path: Path, cli_config: Path, steps_model: StepsModel
) -> None:
    """In this process (tests/kite_cli.py): what ``kite batch`` writes, prints and exits with."""
    tasks = tmp_path / "jobs.jsonl"
    write_tasks(
        tasks,
        [
            {
                "id": "js",
                "task": "runs js [js]",
                "start_url": "{sites}/forms/",
                "check": {"js": "document.title === 'js ran'"},
            },
            {
                "id": "js-own-deny",
                "task": "denied js [js]",
                "start_url": "{sites}/forms/",
                "approve": [],
                "check": {"js": "document.title === 'js ran'"},
            },
        ],
    )
    done = run_kite(
        *("--config", str(cli_config), "batch", str(tasks), "--model", "kite/steps"),
        *("--approve", "executeJS", "--concurrency", "2"),
        cwd=tmp_path,
        env={"COLUMNS": "200"},
    )
    assert done.returncode == 1, done.stderr
    out = tmp_path / "jobs.results.jsonl"  # the default output
    rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert rows["js"]["success"] and not rows["js-own-deny"]["success"]
    table = {line.split("│")[1].strip(): line for line in done.stdout.splitlines() if line.count("│") > 3}
    assert " ok " in table["js"] and "FAIL" in table["js-own-deny"], done.stdout
    assert "1/2 succeeded, 1 failed" in done.stdout
    assert "batch" in done.stderr and "2/2" in done.stderr  # the progress bar's last state
