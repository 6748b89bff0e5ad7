"""Files a newcomer gets wrong (a task file that is not UTF-8 text, ...): one line and exit 2, no traceback.
The real ``kite`` CLI (in the test's process: tests/agent/test_cli_usage_gaps.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agent.test_cli_readme import one_usage_line
from tests.agent.test_cli_usage_gaps import kite


@pytest.mark.parametrize("name", ["tasks.jsonl", "tasks.yaml"])
def test_a_task_file_that_is_not_utf8_is_a_usage_error(tmp_path: Path, name: str):
    tasks = tmp_path / name
    tasks.write_bytes(b'\xff\xfe{"id": "a", "task": "x"}\n')
    runs = tmp_path / "runs"
    out = kite("batch", str(tasks), "--model", "kite/scripted", "--runs-dir", str(runs), cwd=tmp_path)
    one_usage_line(out, f"cannot read {tasks}: it is not UTF-8 text (byte 0)")
    assert not runs.exists(), "a run started"


def test_an_output_schema_that_is_not_utf8_is_a_usage_error(tmp_path: Path):
    schema = tmp_path / "schema.json"
    schema.write_bytes(b'\xff{"type": "object"}')
    runs = tmp_path / "runs"
    out = kite(
        "run", "a task", "--model", "kite/scripted", "--runs-dir", str(runs), "--output-schema", str(schema)
    )
    one_usage_line(out, f"--output-schema: {schema} is not UTF-8 text (byte 0)")
    assert not runs.exists() or not any(runs.iterdir()), "a run started"


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"{bad", "Invalid JSON"),
        (b"[1]", "Input should be an object"),
        (b"{}", "suite: Field required"),
        (b"\xff{}", "it is not UTF-8 text (byte 0)"),
    ],
)
def test_eval_compare_names_the_file_that_is_not_a_report(tmp_path: Path, content: bytes, says: str):
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    one_usage_line(
        kite("eval", "compare", str(bad), str(bad), cwd=tmp_path), f"{bad} is not an eval report", says
    )


def test_kite_show_of_a_damaged_record(tmp_path: Path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "steps.jsonl").write_bytes(b'\xff\xfe{"step": 1}\n')
    out = kite("show", str(run), cwd=tmp_path)  # steps that are not UTF-8: skipped like a torn line
    assert out.returncode == 0 and "Traceback" not in out.stderr, out
    assert "the run has no result" in out.stdout, out.stdout
    (run / "run.json").write_text("{bad", encoding="utf-8")
    one_usage_line(kite("show", str(run), cwd=tmp_path), f"{run / 'run.json'} is damaged")


def test_a_bad_setting_names_the_file_or_variable_that_set_it(tmp_path: Path):
    config = tmp_path / "kite.yaml"
    config.write_text("browser:\n  headless: maybe\n", encoding="utf-8")
    says = "config key 'browser.headless': Input should be a valid boolean"
    one_usage_line(kite("--config", str(config), "run", "a task", cwd=tmp_path), says, f"(set in {config})")
    line = one_usage_line(kite("run", "a task", cwd=tmp_path, KITE_HEADLESS="maybe"), says)
    assert line.endswith("(set by KITE_HEADLESS)"), line


@pytest.mark.parametrize(
    "argv",
    [
        ["batch", "TASKS", "--model", "kite/scripted", "--out", "OUT"],
        ["eval", "sites", "--model", "kite/oracle", "--tasks", "shop-search", "--json", "OUT"],
        ["eval", "sites", "--model", "kite/oracle", "--tasks", "shop-search", "--html", "OUT"],
    ],
    ids=["batch_out", "eval_json", "eval_html"],
)
def test_an_output_file_that_is_a_folder_is_refused_before_anything_runs(tmp_path: Path, argv: list[str]):
    tasks = tmp_path / "tasks.yaml"
    tasks.write_text("- id: a\n  task: x\n", encoding="utf-8")
    folder = tmp_path / "out"
    folder.mkdir()
    runs = tmp_path / "runs"
    argv = [str(tasks) if a == "TASKS" else str(folder) if a == "OUT" else a for a in argv]
    out = kite(*argv, "--runs-dir", str(runs), cwd=tmp_path)
    flag = argv[-2]
    one_usage_line(out, f"{flag} {folder} is a folder: give a file name")
    assert not runs.exists(), "tasks ran"
