"""An xdist worker's session ends before execnet loses patience with it: no KeyboardInterrupt at the end of a run.

Once a worker reports its session finished, execnet gives it 5 s to return and then sends it a SIGINT; pytest
spends that time on five full garbage collections. On a heap the size of a real worker's (tests/conftest.py's
plugins import litellm, Playwright and hypothesis) those took longer than 5 s on a busy machine, and every
worker printed hypothesis's gc callback interrupted (``PytestUnraisableExceptionWarning ... KeyboardInterrupt``).
tests/conftest.py collects and freezes the heap when the session ends. Here one worker runs one test with the
real conftest, a heap made larger still, and execnet's window cut to a fifth (1 s, so the race shows on a quiet
machine too): the worker ends in time and nothing is interrupted."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

IMPATIENT = '''
"""Cut execnet's wait for a finishing worker (5 s, then SIGINT; 10 s more, then os._exit) to a fifth."""


def pytest_sessionstart(session):
    for plugin in session.config.pluginmanager.get_plugins():
        gateway = getattr(getattr(plugin, "channel", None), "gateway", None)
        pool = getattr(gateway, "_execpool", None)
        if pool is not None:
            wait = pool.waitall
            pool.waitall = lambda timeout=None: wait(None if timeout is None else timeout / 5)
'''

BIG_HEAP = """
HEAP = [[i] for i in range(1_000_000)]  # live containers: every full collection walks them


def test_something():
    assert len(HEAP) == 1_000_000
"""


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_worker_finishes_before_execnet_interrupts_it(tmp_path: Path) -> None:
    (tmp_path / "impatient.py").write_text(IMPATIENT, encoding="utf-8")
    (tmp_path / "test_big_heap.py").write_text(BIG_HEAP, encoding="utf-8")
    traces = tmp_path / "tmp"  # execnet's trace files (EXECNET_DEBUG=1): <TMPDIR>/execnet-debug-<pid>
    traces.mkdir()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]),
        "EXECNET_DEBUG": "1",
        "TMPDIR": str(traces),
    }
    args = ["-n", "1", "-p", "no:cacheprovider", "-p", "tests.conftest", "-p", "impatient"]
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            *args,
            "--rootdir",
            str(tmp_path),
            str(tmp_path / "test_big_heap.py"),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    said = run.stdout + run.stderr
    assert run.returncode == 0 and "1 passed" in said, said
    worker = [t.read_text() for t in traces.glob("execnet-debug-*") if "gw0-worker" in t.read_text()]
    assert len(worker) == 1, "the worker's trace"
    assert "received <Message GATEWAY_TERMINATE" in worker[0], "the worker was told to end"
    assert "sending ourselves a SIGINT" not in worker[0], worker[0][-2000:]
    assert "KeyboardInterrupt" not in said and "PytestUnraisableExceptionWarning" not in said, said
