"""Commands as README shows them, with the bad inputs a newcomer types: each is one line and exit 2, before
anything starts (no browser, no run record). The real ``kite`` CLI, in the test's process (tests/kite_cli.py),
except where the process is the point (a reader that leaves a pipe early)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.kite_cli import run_kite

ROOT = Path(__file__).resolve().parents[2]


def kite(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """``kite ARGS`` in this process (tests/kite_cli.py): what it prints and exits with, not its process."""
    return run_kite(*args, cwd=cwd)


def one_usage_line(out: subprocess.CompletedProcess[str], *words: str) -> str:
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert out.returncode == 2, out
    assert len(lines) == 1 and lines[0].startswith("kite: error:"), out.stderr
    for word in words:
        assert word in lines[0], (word, out.stderr)
    return lines[0]


@pytest.mark.parametrize(
    ("model", "says"),
    [
        ("nosuch/model", "litellm knows no provider for 'nosuch/model'"),
        ("gpt4o", "litellm knows no provider for 'gpt4o'"),
        ("kite/nope", "no model kite/nope is registered"),
    ],
)
def test_kite_run_with_a_model_nobody_can_call_is_a_usage_error(tmp_path: Path, model: str, says: str):
    runs = tmp_path / "runs"
    out = kite("run", "a task", "--model", model, "--runs-dir", str(runs))
    one_usage_line(out, says)
    assert not runs.exists() or not list(runs.iterdir()), "a run started"


def test_kite_batch_with_a_task_model_nobody_can_call_is_a_usage_error(tmp_path: Path):
    tasks = tmp_path / "tasks.yaml"
    tasks.write_text("- {id: a, task: do it, start_url: 'http://127.0.0.1:9/', model: nosuch/model}\n")
    out = kite("batch", str(tasks), "--out", str(tmp_path / "r.jsonl"), "--runs-dir", str(tmp_path / "runs"))
    one_usage_line(out, "nosuch/model")
    assert not (tmp_path / "r.jsonl").exists()


@pytest.mark.parametrize(
    ("model", "says"), [("kite/oracle", "only runs under 'kite eval'"), ("x/y", "'x/y'")]
)
def test_kite_serve_refuses_a_model_it_could_never_run_before_listening(model: str, says: str):
    out = kite("serve", "--model", model, "--port", "0")
    one_usage_line(out, says)
    assert "listening" not in out.stderr


def test_output_piped_into_head_ends_quietly():
    """``kite snapshot URL --json | head -c 300``: the reader leaves early; no BrokenPipeError traceback."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "kite_browser.agent", "tools", "list", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # before kite writes anything
    err = proc.stderr.read()
    assert proc.wait(timeout=90) == 1
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
