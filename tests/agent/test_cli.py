"""The ``kite`` command line as a user meets it: help, usage errors, a real run, Ctrl-C. The help and Ctrl-C in a
real process; the rest in the test's process (tests/kite_cli.py), which imports litellm once, not per test."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.kite_cli import run_kite

ROOT = Path(__file__).resolve().parents[2]


def kite_process(*args: str) -> subprocess.CompletedProcess:
    """``python -m kite_browser.agent ARGS``: a real process, as a user starts it."""
    return subprocess.run(
        [sys.executable, "-m", "kite_browser.agent", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=dict(os.environ),
        timeout=60,
    )


def kite(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``kite ARGS`` in this process (tests/kite_cli.py): for what it prints and exits with, not its process."""
    return run_kite(*args, env=env)


def test_help_lists_the_commands():
    out = kite_process("--help")
    assert out.returncode == 0
    for command in ("run", "tui", "batch", "eval", "snapshot", "sites", "local", "demo"):
        assert command in out.stdout, command


@pytest.mark.parametrize(
    "args",
    [
        ["--bogus"],
        ["run"],
        ["run", "task", "--max-steps", "0"],
        ["run", "task", "--viewport", "huge"],
        ["run", "task", "--observation", "everything"],
        ["snapshot"],
        ["nosuchcommand"],
    ],
)
def test_usage_errors_are_one_line_and_exit_2(args):
    out = kite(*args)
    assert out.returncode == 2, out
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("kite: error:"), out.stderr
    assert "Traceback" not in out.stderr


def test_the_oracle_is_for_kite_eval_only():
    out = kite("run", "task", "--model", "kite/oracle")
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert out.returncode == 2 and len(lines) == 1 and "only runs under 'kite eval'" in lines[0]
    assert "Provider NOT provided" not in out.stderr


def test_bad_config_file_is_a_usage_error(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("agent:\n  max_steps: lots\n")
    out = kite("--config", str(bad), "run", "task", "--model", "kite/scripted")
    assert out.returncode == 2 and "max_steps" in out.stderr and "Traceback" not in out.stderr


def _entry(tmp_path: Path, script: list, *kite_args: str, latency: float = 0.0) -> subprocess.Popen:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    return subprocess.Popen(
        [sys.executable, "-m", "tests.agent.cli_entry", str(path), str(latency), "--", *kite_args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "KITE_RUNS_DIR": str(tmp_path / "runs"), "KITE_HOME": str(tmp_path / "home")},
    )


def _run(tmp_path: Path, script: list, *kite_args: str) -> subprocess.CompletedProcess[str]:
    """``kite`` with the scripted fake model, in this process (tests/kite_cli.py): for a test about what a run
    prints and records, not about its process (``_entry`` starts one)."""
    env = {"KITE_RUNS_DIR": str(tmp_path / "runs"), "KITE_HOME": str(tmp_path / "home")}
    return run_kite(*kite_args, script=script, env=env)


def test_kite_run_end_to_end(tmp_path, sites):
    script = [
        {"name": "click", "arguments": {"selector": "#increment"}},
        {"name": "done", "arguments": {"success": True, "answer": "count is 1"}},
    ]
    proc = _run(
        tmp_path,
        script,
        "run",
        "press increment once",
        "--model",
        "kite/scripted",
        "--start-url",
        sites.url("/test/counter.html"),
        "--json",
    )
    out, err = proc.stdout, proc.stderr
    assert proc.returncode == 0, err
    result = json.loads(out.strip().splitlines()[-1])
    assert result["success"] and result["answer"] == "count is 1" and result["steps"] == 2
    assert "click" in err and "answer: count is 1" in err
    run = json.loads((Path(result["run_dir"]) / "run.json").read_text())
    assert run["result"]["stop_reason"] == "done"


@pytest.mark.timeout(400)  # a kite process importing litellm at load 25 takes minutes to start its run
def test_ctrl_c_saves_the_record_and_exits_130(tmp_path, sites):
    script = [{"name": "scroll", "arguments": {"direction": "down"}}] * 5
    proc = _entry(
        tmp_path,
        script,
        "run",
        "scroll forever",
        "--model",
        "kite/scripted",
        "--start-url",
        sites.url("/shop/"),
        latency=60.0,
    )
    runs = tmp_path / "runs"
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and not list(runs.glob("*/steps.jsonl")):
        time.sleep(0.2)  # polling the file system for the run to start, not synchronising with a guess
    steps_files = list(runs.glob("*/steps.jsonl"))
    assert steps_files, "the run never started"
    while time.monotonic() < deadline and not steps_files[0].read_text().strip():
        time.sleep(0.2)  # wait for the start navigation to be recorded: the model call is in flight after it
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    run = json.loads((steps_files[0].parent / "run.json").read_text())
    assert run["result"]["stop_reason"] == "interrupted"
    assert "Traceback" not in err


def test_kite_run_output_schema(tmp_path):
    schema = {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}
    (tmp_path / "schema.json").write_text(json.dumps(schema))
    script = [
        {"name": "done", "arguments": {"success": True, "answer": "one", "data": {"count": "one"}}},
        {"name": "done", "arguments": {"success": True, "answer": "one", "data": {"count": 1}}},
    ]
    proc = _run(
        tmp_path,
        script,
        "run",
        "count",
        "--model",
        "kite/scripted",
        "--json",
        "--output-schema",
        str(tmp_path / "schema.json"),
    )
    out, err = proc.stdout, proc.stderr
    assert proc.returncode == 0, err
    result = json.loads(out.strip().splitlines()[-1])
    assert result["data"] == {"count": 1} and result["steps"] == 2 and "output" not in result
    assert 'data: {"count": 1}' in err and "invalid_data" in err
    run = json.loads((Path(result["run_dir"]) / "run.json").read_text())
    assert run["result"]["data"] == {"count": 1}
    step = json.loads((Path(result["run_dir"]) / "steps.jsonl").read_text().splitlines()[0])
    assert json.dumps(schema) in step["request"]["messages"][1]["content"], "the step prompt shows the schema"
    (tool,) = json.loads((Path(result["run_dir"]) / step["request"]["tools_file"]).read_text())
    assert "done(success, answer?, data?)" in tool["function"]["description"]  # the one-tool default


def test_a_bad_output_schema_is_a_usage_error(tmp_path):
    (tmp_path / "schema.json").write_text('{"type": "counter"}')
    env = {"KITE_RUNS_DIR": str(tmp_path / "runs"), "KITE_HOME": str(tmp_path / "home")}
    out = kite(
        "run", "task", "--model", "kite/scripted", "--output-schema", str(tmp_path / "schema.json"), env=env
    )
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert out.returncode == 2 and len(lines) == 1 and "not a valid JSON schema at type" in lines[0], (
        out.stderr
    )
