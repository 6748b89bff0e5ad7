"""A signal to a running ``kite run`` stops it the way Ctrl-C does: within seconds, with the run's record
written (stop reason ``interrupted``), the browser closed (no Chromium left), the local model server let go,
no traceback, and the shell's exit code (128 + the signal: 143 for SIGTERM).

The model call is in flight when the signal comes: with ``--model local`` a fake bundled server (as in
test_two_local_runs.py) that holds the request; with ``kite/scripted`` a reply that takes a minute. Every process
the run starts carries a marker in its environment, so the check for leftovers sees this test's Chromium only."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from kite_browser.agent.browser.procs import Proc, still_alive, with_env
from kite_browser.agent.llm.local_install import LocalPaths
from tests.agent.test_two_local_runs import fake_install
from tests.fixtures.openai_server import FakeOpenAIServer, Stall

ROOT = Path(__file__).resolve().parents[2]
MARKER = "KITE_TEST_MARKER"
PROMPT_STOP_S = 20.0
"""How long the stop may take on a busy 2-core machine (it takes 1-3 s on a quiet one; the hang was minutes)."""
pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def wait_until(cond: Any, what: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)  # polling a condition against a deadline


def start(argv: list[str], env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    marker = uuid.uuid4().hex
    proc = subprocess.Popen(
        argv,
        cwd=ROOT,
        env={**os.environ, **env, MARKER: marker},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    return proc, marker


def signal_and_wait(
    proc: subprocess.Popen[str], marker: str, sig: signal.Signals
) -> tuple[str, str, list[Proc]]:
    """Send ``sig`` to kite alone (``kill PID``); its stdout and stderr, and the family it had (Chromium ...)."""
    family = with_env(MARKER, marker)
    assert any(p.is_chromium for p in family), "the browser is running"
    sent = time.monotonic()
    proc.send_signal(sig)
    try:
        out, err = proc.communicate(timeout=PROMPT_STOP_S)
    except subprocess.TimeoutExpired as late:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        raise AssertionError(
            f"kite run did not stop within {PROMPT_STOP_S:.0f}s of {sig.name}:\n{err[-3000:]}"
        ) from late
    assert time.monotonic() - sent < PROMPT_STOP_S
    return out, err, family


def no_process_left(family: list[Proc], marker: str) -> None:
    wait_until(lambda: not still_alive(family), "the run's processes to exit", timeout=30)
    assert with_env(MARKER, marker) == []  # nothing escaped the tree either (crashpad daemonizes)


def the_record(runs: Path) -> dict[str, Any]:
    records = list(runs.glob("*/run.json"))
    assert len(records) == 1, records
    run = json.loads(records[0].read_text())
    assert run["result"] and run["result"]["stop_reason"] == "interrupted", run.get("result")
    assert (records[0].parent / "steps.jsonl").read_text().strip(), "the start navigation is recorded"
    return dict(run)


def test_sigterm_during_a_local_model_call(tmp_path: Path, short_tmp: str, sites: Any) -> None:
    server = FakeOpenAIServer(fallback=Stall(600)).start()  # the call is in flight until kite stops it
    sleeper = subprocess.Popen(["sleep", "600"])  # the "server process" Kite sees alive
    home, runs = tmp_path / "home", tmp_path / "runs"
    try:
        paths: LocalPaths = fake_install(home, server.port, sleeper.pid)
        proc, marker = start(
            [
                *(sys.executable, "-m", "kite_browser.agent", "run", "look at the page"),
                *("--start-url", sites.url("/test/reply-next.html"), "--model", "local"),
                *("--max-steps", "2", "--runs-dir", str(runs)),
            ],
            {"KITE_HOME": str(home), "TMPDIR": short_tmp},
        )
        try:
            wait_until(lambda: server.requests or proc.poll() is not None, "the model call")
            assert proc.poll() is None, proc.communicate()[1]
            assert proc.pid in json.loads(paths.state.read_text())["clients"]  # kite uses the shared server
            _out, err, family = signal_and_wait(proc, marker, signal.SIGTERM)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        assert proc.returncode == 143, err
        assert "Traceback" not in err and "TypeError" not in err, err
        assert "kite: interrupted (SIGTERM)" in err
        no_process_left(family, marker)
        the_record(runs)
        state = json.loads(paths.state.read_text())  # the pinned server runs on; kite is no longer a client
        assert proc.pid not in state["clients"] and state["pid"] == sleeper.pid
    finally:
        server.stop()
        sleeper.kill()
        sleeper.wait()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["sigterm", "sighup"])
def test_signal_during_a_scripted_model_call(tmp_path: Path, sites: Any, sig: signal.Signals) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"name": "scroll", "arguments": {"direction": "down"}}] * 3))
    runs = tmp_path / "runs"
    proc, marker = start(
        [
            *(sys.executable, "-m", "tests.agent.cli_entry", str(script), "60", "--"),
            *("run", "scroll forever", "--model", "kite/scripted", "--json"),
            *("--start-url", sites.url("/shop/"), "--runs-dir", str(runs)),
        ],
        {"KITE_HOME": str(tmp_path / "home")},
    )
    try:
        steps = lambda: [s for s in runs.glob("*/steps.jsonl") if s.read_text().strip()]  # noqa: E731
        wait_until(lambda: steps() or proc.poll() is not None, "the start navigation to be recorded")
        assert proc.poll() is None, proc.communicate()[1]
        out, err, family = signal_and_wait(proc, marker, sig)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 128 + sig, err
    assert "Traceback" not in err and f"kite: interrupted ({sig.name})" in err, err
    no_process_left(family, marker)
    run = the_record(runs)
    result = json.loads(out.strip().splitlines()[-1])  # --json: the interrupted result, as recorded
    assert result["stop_reason"] == "interrupted" and result["run_dir"] == run["result"]["run_dir"]
