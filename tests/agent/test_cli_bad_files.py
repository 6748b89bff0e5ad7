"""Files a newcomer gets wrong (a task file that is not UTF-8 text, ...): one line and exit 2, no traceback.
The real ``kite`` CLI in a subprocess."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agent.test_cli_readme import kite, one_usage_line


@pytest.mark.parametrize("name", ["tasks.jsonl", "tasks.yaml"])
def test_a_task_file_that_is_not_utf8_is_a_usage_error(tmp_path: Path, name: str):
    tasks = tmp_path / name
    tasks.write_bytes(b'\xff\xfe{"id": "a", "task": "x"}\n')
    runs = tmp_path / "runs"
    out = kite("batch", str(tasks), "--model", "kite/scripted", "--runs-dir", str(runs), cwd=tmp_path)
    one_usage_line(out, f"cannot read {tasks}: it is not UTF-8 text (byte 0)")
    assert not runs.exists(), "a run started"
