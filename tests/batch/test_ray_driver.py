"""A ``kite batch --backend ray`` driver killed with SIGKILL mid-batch, as the OOM killer would: the local Ray it
started goes with it (its workers, their Playwright drivers and Chromiums, Ray's own processes), and the same
command run again resumes as the local backend does: finished ids are skipped, every id ends up in the
results exactly once, and every task's run record is in the driver's runs folder. A real ``kite`` subprocess
(tests/batch/kite_fake.py: ``kite/steps`` answers after 0.3 s; the model object travels to the workers)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from kite_browser.agent.batch.ray_reaper import descendants, running
from tests.batch.conftest import write_tasks
from tests.batch.test_cli import TIMEOUT_S, env, ids_in, kite

pytest.importorskip("ray")  # an optional extra; CI installs it
pytestmark = [pytest.mark.slow, pytest.mark.timeout(600), pytest.mark.xdist_group("ray")]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def test_a_killed_driver_leaves_no_ray_behind_and_the_rerun_resumes(tmp_path: Path, cli_config: Path) -> None:
    ids = [f"task-{i}" for i in range(6)]
    tasks = write_tasks(
        tmp_path / "tasks.yaml",
        [
            {"id": i, "task": f"{i} look", "start_url": "{sites}/shop/", "check": {"url": "/shop/"}}
            for i in ids
        ],
    )
    out, runs = tmp_path / "results.jsonl", tmp_path / "runs"
    argv = kite("--config", str(cli_config), "batch", str(tasks), "--out", str(out), "--model", "kite/steps",
                "--backend", "ray", "--workers", "1", "--concurrency", "2", "--runs-dir", str(runs), cwd=tmp_path)  # fmt: skip
    first = subprocess.Popen(
        argv, cwd=tmp_path, env=env(), stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
        start_new_session=True,
    )  # fmt: skip
    finished: list[str] = []
    below: list[tuple[int, int]] = []
    names: list[str] = []
    try:
        assert first.stderr is not None
        for line in first.stderr:  # one line per finished task, printed after its result is written
            if line.startswith(("✓", "✗")):
                finished.append(line.split()[1])
                if len(finished) == 2:
                    break
        below = descendants(first.pid)
        names = [_cmdline(pid) for pid, _ in below]
        os.kill(first.pid, signal.SIGKILL)  # the driver alone, not its process group
    finally:
        first.wait(timeout=30)
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
    assert first.returncode == -signal.SIGKILL and len(finished) == 2, finished
    assert sum("ray::BrowserWorker" in n for n in names) == 1, [n[:60] for n in names]
    assert any("chrom" in n.lower() for n in names) and any("raylet" in n for n in names), names
    deadline = time.monotonic() + 60
    while running(below) and time.monotonic() < deadline:
        time.sleep(0.2)  # polling a condition with a deadline
    left = [(pid, _cmdline(pid)[:120]) for pid, _ in running(below)]
    assert not left, f"outlived the killed driver: {left}"

    before = out.read_text()
    assert set(finished) <= set(ids_in(out)) and 2 <= len(ids_in(out)) < len(ids)
    second = subprocess.run(argv, cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=TIMEOUT_S)
    assert second.returncode == 0, second.stderr
    assert f"resuming {out}: {len(before.splitlines())} of 6 task(s) already finished" in second.stderr
    after = out.read_text()
    assert after.startswith(before), "earlier results were changed"
    assert sorted(ids_in(out)) == ids, "every id exactly once"
    rows = [json.loads(line) for line in after.splitlines()]
    assert all(r["success"] and r["check"]["passed"] and r["attempts"] == 1 for r in rows)
    for r in rows:  # each record is in the driver's runs folder, the killed run's too
        assert Path(r["run_dir"]).parent == runs and (Path(r["run_dir"]) / "run.json").is_file(), r
    assert "6/6 succeeded" in second.stdout
