"""The results file: one JSON line per task, torn last lines tolerated and repaired before appending."""

from __future__ import annotations

import json
from pathlib import Path

from kite_browser.agent.batch.results import ResultWriter, TaskResult, read_results


def line(id_: str, success: bool = True) -> str:
    return json.dumps(TaskResult(id=id_, success=success, stop_reason="done").model_dump(mode="json"))


def test_torn_last_line_is_not_a_result(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    out.write_text(line("a") + "\n" + line("b") + "\n" + line("c")[:25])
    found = read_results(out)
    assert set(found.results) == {"a", "b"}
    assert found.torn and found.skipped == 0


def test_writer_cuts_a_torn_line_before_appending(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    out.write_text(line("a") + "\n" + line("c")[:25])
    with ResultWriter(out) as writer:
        writer.write(TaskResult(id="c", success=True, stop_reason="done"))
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["a", "c"]
    assert not read_results(out).torn


def test_complete_last_line_without_newline_is_kept(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    out.write_text(line("a"))
    assert set(read_results(out).results) == {"a"}
    with ResultWriter(out) as writer:
        writer.write(TaskResult(id="b", success=False, stop_reason="max_steps"))
    assert [json.loads(x)["id"] for x in out.read_text().splitlines()] == ["a", "b"]


def test_garbage_lines_are_skipped_and_the_last_result_per_id_wins(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    out.write_text("\n".join([line("a", False), "not json", '{"no": "id"}', line("a", True), ""]))
    found = read_results(out)
    assert found.skipped == 2 and found.lines == 4
    assert found.results["a"].success is True


def test_each_write_is_one_complete_line(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    with ResultWriter(out) as writer:
        writer.write(TaskResult(id="x", success=True, stop_reason="done", answer="ünïcode\nwith newline"))
        assert out.read_text(encoding="utf-8").endswith("}\n")  # flushed before the writer closes
    assert read_results(out).results["x"].answer == "ünïcode\nwith newline"
