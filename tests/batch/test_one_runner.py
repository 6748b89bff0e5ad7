"""One runner behind ``kite batch`` and ``kite eval``: the same tasks give the same per-task result objects,
whichever command ran them (only the run folder and the timings differ)."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from kite_browser.agent.batch.results import TaskResult
from kite_browser.agent.cli import main
from tests.batch.conftest import write_tasks

TIMING = {"run_dir", "wall_s", "duration_s", "model_latency_s", "overhead_s", "finished_at"}


def test_batch_and_eval_give_the_same_results(
    tmp_path: Path, cli_config: Path, steps_model: object, capsys: pytest.CaptureFixture[str]
) -> None:
    tasks = write_tasks(
        tmp_path / "same.yaml",
        [
            {
                "id": "checked",
                "task": "alpha [steps=2]",
                "start_url": "{sites}/shop/",
                "check": {"url": "/shop/$"},
            },
            {"id": "claim-only", "task": "beta", "start_url": "{sites}/forms/"},
            {
                "id": "check-fails",
                "task": "gamma",
                "start_url": "{sites}/forms/",
                "check": {"text": "Nowhere"},
            },
            {"id": "too-short", "task": "delta [steps=4]", "start_url": "{sites}/shop/", "max_steps": 2},
        ],
        defaults={"tags": ["same"]},
    )
    common = ["--model", "kite/steps", "--concurrency", "2", "--runs-dir", str(tmp_path / "runs")]
    out, report = tmp_path / "batch.jsonl", tmp_path / "eval.json"
    code = main(["--config", str(cli_config), "batch", str(tasks), "--out", str(out), *common])
    assert code == 1, capsys.readouterr()  # two tasks fail: that is the point
    code = main(["--config", str(cli_config), "eval", str(tasks), "--json", str(report), *common])
    assert code == 1, capsys.readouterr()

    from_batch = {r.id: r for r in map(TaskResult.model_validate_json, out.read_text().splitlines())}
    from_eval = {r["id"]: TaskResult.model_validate(r) for r in json.loads(report.read_text())["tasks"]}
    assert list(from_batch) and sorted(from_batch) == sorted(from_eval) == sorted(
        ["checked", "claim-only", "check-fails", "too-short"]
    )
    for tid, b in from_batch.items():
        assert b.model_dump(exclude=TIMING) == from_eval[tid].model_dump(exclude=TIMING) | {
            "final_url": b.final_url  # each command starts the bundled sites on a port of its own
        }, tid
        assert urlsplit(b.final_url or "").path == urlsplit(from_eval[tid].final_url or "").path
    assert {tid for tid, r in from_batch.items() if r.success} == {"checked", "claim-only"}
    assert from_batch["check-fails"].claimed_success and from_batch["check-fails"].failures
    assert from_batch["too-short"].stop_reason == "max_steps" and from_batch["too-short"].steps == 2
    assert all(r.tags == ["same"] and r.tokens > 0 and r.model == "kite/steps" for r in from_batch.values())
