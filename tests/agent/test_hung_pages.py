"""A page whose script never yields (``while (true) {}``) must not hang ``kite run``.

The real command line, a real Chromium, the pages from a real local HTTP server, and the model behind a fake
OpenAI-compatible HTTP server: the stuck tab is detected, closed, the model is told, and the run ends with a
result and a complete record. The step that met the stuck page ends within 30 s (the whole command takes
longer on a loaded machine: importing litellm alone can take half a minute there)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.browser import PagesServer
from tests.fixtures.openai_server import FakeOpenAIServer, Reply

ROOT = Path(__file__).resolve().parents[2]
LIMIT_S = 30.0

FINE = "<title>Fine</title><h1>A page that works</h1><a href='/elsewhere'>elsewhere</a>"
AFTER_LOAD = """<title>Spins later</title><h1>Loaded</h1><button>Go</button>
<script>addEventListener('load', () => setTimeout(() => { while (true) {} }, 1000));</script>"""
DURING_LOAD = """<title>Spins while loading</title><h1>Never finishes loading</h1>
<script>while (true) {}</script><p>never parsed</p>"""

DONE = Reply(tool_calls=[("done", {"success": True, "answer": "gave up on the stuck page"})])


def kite_run(tmp_path: Path, server: FakeOpenAIServer, start_url: str) -> tuple[dict, str]:
    out = subprocess.run(
        [
            *(
                sys.executable,
                "-m",
                "kite_browser.agent",
                "run",
                "use the page",
                "--start-url",
                start_url,
                "--json",
            ),
            *("--model", "openai/fake", "--api-base", server.base_url, "--runs-dir", str(tmp_path / "runs")),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "KITE_HOME": str(tmp_path / "home")},
        timeout=120,
    )
    assert "Traceback" not in out.stderr, out.stderr
    lines = out.stdout.strip().splitlines()
    assert lines, out.stderr
    return json.loads(lines[-1]), out.stderr


def told(server: FakeOpenAIServer) -> list[str]:
    """The model requests that mention the stuck page."""
    return [json.dumps(r["messages"]) for r in server.requests if "stopped responding" in json.dumps(r)]


def steps_of(result: dict) -> list[dict]:
    lines = (Path(result["run_dir"]) / "steps.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


@pytest.mark.slow
def test_a_page_that_spins_after_load_is_closed_and_the_model_told(tmp_path, pages_server: PagesServer):
    url = pages_server.add("/spins-after-load.html", AFTER_LOAD)
    server = FakeOpenAIServer(fallback=DONE).start()
    try:
        server.push(Reply(tool_calls=[("wait", {"ms": 2500})]))  # the page starts spinning meanwhile
        result, err = kite_run(tmp_path, server, url)
    finally:
        server.stop()
    assert result["stop_reason"] == "done", (result, err)
    assert told(server), "the model was never told that the page stopped responding"
    [stuck] = [s for s in steps_of(result) if "recovered" in s or _unresponsive_action(s)]
    assert _blocked_s(stuck) < LIMIT_S, stuck
    run = json.loads((Path(result["run_dir"]) / "run.json").read_text())
    assert run["result"]["stop_reason"] == "done"


@pytest.mark.slow
def test_a_page_that_spins_while_loading_is_closed_and_the_model_told(tmp_path, pages_server: PagesServer):
    start = pages_server.add("/fine.html", FINE)
    stuck = pages_server.add("/spins-while-loading.html", DURING_LOAD)
    server = FakeOpenAIServer(fallback=DONE).start()
    try:
        server.push(Reply(tool_calls=[("navigate", {"url": stuck})]))
        result, err = kite_run(tmp_path, server, start)
    finally:
        server.stop()
    assert result["stop_reason"] == "done", (result, err)
    [first, *_] = [s for s in steps_of(result) if s["step"] == 1]
    [outcome] = first["actions"]
    assert outcome["result"]["error"]["error"] == "page_unresponsive"
    assert _blocked_s(first) < LIMIT_S, first
    assert "Kite closed that tab" in outcome["result"]["error"]["message"]
    assert told(server)
    assert "page_unresponsive" in err or "stopped responding" in err


def _blocked_s(step: dict) -> float:
    """How long the step with the stuck page took: its observation, and its actions until the tab was closed."""
    actions = sum(a["result"].get("duration_ms") or 0 for a in step.get("actions", []))
    return (step["overhead_ms"]["observe+prompt"] + actions) / 1000


def _unresponsive_action(step: dict) -> bool:
    return any(
        (a.get("result", {}).get("error") or {}).get("error") == "page_unresponsive"
        for a in step.get("actions", [])
    )
