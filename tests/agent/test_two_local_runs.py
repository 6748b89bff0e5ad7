"""Two ``kite run --model local`` at once on one shared local model server both finish: the second waits its
turn, says so, and its wait does not count against its time limit.

The server is a fake that stands in for the bundled llama.cpp server (a real OpenAI-compatible HTTP server on
127.0.0.1 that answers ``/health`` and works on one request at a time); Kite finds it as it finds a running
bundled server: through ``server.json`` in its data folder (pinned, so neither run stops it), with the install
markers in place (the GGUF a sparse file of the pinned size)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from kite_browser.agent.llm.local_install import LocalPaths
from kite_browser.agent.llm.local_pins import GGUF_SHA256, GGUF_SIZE, MODEL_ALIAS, SERVER_WHEEL
from tests.fixtures.openai_server import FakeOpenAIServer, Hold, Reply, Respond

ROOT = Path(__file__).resolve().parents[2]
DONE = {"thought": "The page is open.", "actions": [{"action": "done", "success": True, "answer": "seen"}]}


def fake_install(home: Path, port: int, pid: int) -> LocalPaths:
    paths = LocalPaths.for_data_dir(home)
    paths.server_script.parent.mkdir(parents=True)
    paths.server_script.write_text("#!/bin/sh\n", encoding="utf-8")
    (paths.site / ".kite-pin").write_text(SERVER_WHEEL.sha256, encoding="utf-8")
    paths.gguf.parent.mkdir(parents=True)
    with open(paths.gguf, "wb") as gguf:
        gguf.truncate(GGUF_SIZE)  # sparse: the size is checked, the bytes are never read here
    paths.gguf_marker.write_text(GGUF_SHA256, encoding="utf-8")
    state = {"pid": pid, "port": port, "model": MODEL_ALIAS, "api_key": "k", "pinned": True, "clients": []}
    paths.state.write_text(json.dumps(state), encoding="utf-8")
    return paths


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_two_runs_share_the_local_server_in_turn(tmp_path: Path, short_tmp: str, sites: Any) -> None:
    home = tmp_path / "home"
    queue = home / "queue"
    first_seen: list[float] = []

    def model(body: dict[str, Any]) -> Hold:
        """The first request is held until the other run is waiting in the queue (so the two overlap however
        the machine schedules their starts), then each request takes the server 3 s."""
        if not first_seen:
            first_seen.append(time.monotonic())
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline and len(list(queue.glob("*/0*"))) < 2:
                time.sleep(0.05)  # the fake server's own wait for the second ticket (a condition, capped)
        return Hold(3.0, Reply(content=json.dumps(DONE)))

    server = FakeOpenAIServer(fallback=Respond(model)).start()
    sleeper = subprocess.Popen(["sleep", "600"])  # the "server process" Kite sees alive
    try:
        fake_install(home, server.port, sleeper.pid)
        env = {**os.environ, "KITE_HOME": str(home), "TMPDIR": short_tmp}
        args = [
            *(sys.executable, "-m", "kite_browser.agent", "run", "look at the page"),
            *("--start-url", sites.url("/test/reply-next.html"), "--model", "local", "--max-steps", "2"),
        ]
        runs = [
            subprocess.Popen(
                [*args, "--runs-dir", str(tmp_path / f"runs{i}")],
                cwd=ROOT,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for i in (1, 2)
        ]
        outs = [run.communicate(timeout=800) for run in runs]
    finally:
        server.stop()
        sleeper.kill()
        sleeper.wait()
    assert not server.errors, server.errors
    for run, (_, err) in zip(runs, outs, strict=True):
        assert run.returncode == 0, err
        assert "Traceback" not in err
    said = "\n".join(out + err for out, err in outs)  # the step lines are the run's output (stdout)
    assert "waiting for the local model: 1 request ahead" in said, said
    assert len(server.started) == 2 and server.finished[0] <= server.started[1]  # one at a time
    assert all("response_format" in r for r in server.requests)  # the bundled model's replies are constrained
    assert not list(queue.glob("*/0*")), "every ticket is given back"
