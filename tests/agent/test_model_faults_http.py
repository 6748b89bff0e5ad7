"""The whole agent against a faulty model behind a real OpenAI-compatible HTTP server, on the bundled shop:
``kite run`` in a subprocess (typed stop reason, one-line message, no traceback, the browser closed, a record
``kite show`` reads) and the Python ``Agent`` (a reply cut off at the output limit is not run)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kite_browser.agent import Agent
from tests.fixtures.openai_server import Behaviour, Body, FakeOpenAIServer, Reply, Status
from tests.fixtures.procs import gone

ROOT = Path(__file__).resolve().parents[2]
NO_CHOICES = Body({"id": "x", "object": "chat.completion", "created": 1, "model": "fake", "choices": []})
DONE = Reply(tool_calls=[("browser_action", {"action": "done", "success": True, "answer": "stopped"})])


@pytest.fixture
def short_tmp() -> Iterator[str]:
    """A short TMPDIR for the CLI (Chromium's temporary profile goes there: a marker on its command line);
    pytest's tmp_path under xdist is too long for the profile's Unix socket and Chromium does not start."""
    path = tempfile.mkdtemp(prefix="kf-")
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def kite(tmp_path: Path, tmpdir: str, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    config = tmp_path / "kite.yaml"
    config.write_text("llm:\n  max_attempts: 3\n  timeout_s: 10\n  retry_max_s: 60\n", encoding="utf-8")
    env = {
        **os.environ,
        "KITE_HOME": str(tmp_path / "home"),
        "KITE_CONFIG": str(config),
        "TMPDIR": tmpdir,
    }
    return subprocess.run(
        [sys.executable, "-m", "kite_browser.agent", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("faults", "error", "requests", "says"),
    [
        (
            [Status(403, message="Incorrect API key provided")],
            "llm_auth_error",
            1,
            "rejected the credentials",
        ),
        ([NO_CHOICES] * 3, "llm_unavailable", 3, "'choices' list is empty"),
        (
            [Status(500, message="the GPU fell over")] * 3,
            "llm_unavailable",
            3,
            "(HTTP 500: the GPU fell over)",
        ),
        ([Status(429, {"Retry-After": "3600"})], "llm_rate_limited", 1, "asked to wait 3600s"),
    ],
)
def test_kite_run_stops_on_a_model_fault_with_one_clear_line(
    tmp_path: Path, short_tmp: str, sites: Any, faults: list[Behaviour], error: str, requests: int, says: str
) -> None:
    server = FakeOpenAIServer(fallback=DONE).start()
    server.push(*faults)
    try:
        out = kite(
            tmp_path,
            short_tmp,
            *("run", "find a blue mug", "--start-url", sites.url("/shop/"), "--json"),
            *("--model", "openai/fake", "--api-base", server.base_url, "--runs-dir", str(tmp_path / "runs")),
        )
    finally:
        server.stop()
    assert out.returncode == 1, out.stderr
    assert "Traceback" not in out.stderr and "internal error" not in out.stderr, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["stop_reason"] == "model_error", result["message"]
    assert result["message"].startswith(f"{error}: ") and says in result["message"], result
    assert "\n" not in result["message"] and "Traceback" not in result["message"]
    # each thing once: the type (up front), the provider's words without litellm's class names, what Kite did
    assert "Error: " not in result["message"] and "OpenAIException" not in result["message"], result
    assert result["message"].lower().count("gave up") <= 1 and result["message"].count(error) == 1, result
    assert len(server.requests) == requests  # bounded retries; never retried past a 3600 s Retry-After
    assert result["duration_s"] < 60, result
    run_dir = Path(result["run_dir"])
    assert not (run_dir / "error.txt").exists()  # not a bug in Kite
    [step] = [
        json.loads(line) for line in (run_dir / "steps.jsonl").read_text().splitlines() if '"step": 1' in line
    ]
    assert step["error"]["error"] == error
    assert gone(short_tmp), "Chromium left running after the run"
    shown = kite(tmp_path, short_tmp, "show", str(run_dir), timeout=60)
    assert shown.returncode == 0, shown.stderr
    assert error in shown.stdout and "Traceback" not in shown.stdout + shown.stderr


async def test_a_reply_cut_off_at_the_output_limit_is_not_run(
    kite_config: Any, sites: Any, openai_server
) -> None:
    """The provider stopped the reply mid-JSON (finish_reason "length"): Kite used to repair the JSON and run
    the truncated action (navigate to half a URL, type half an address). Now the model is told to reply shorter."""
    half_url = sites.url("/shop/search?q=blu")
    cut = Reply(
        tool_calls=[("browser_action", '{"action": "navigate", "params": {"url": "' + half_url)],
        finish_reason="length",
    )
    openai_server.push(cut, DONE)
    config = kite_config(**{"llm.model": "openai/fake", "llm.api_base": openai_server.base_url})
    result = await Agent(config).run("find a blue mug", start_url=sites.url("/shop/"))
    assert result.stop_reason == "done", result
    assert result.final_url == sites.url("/shop/")  # the truncated navigation never ran
    told = json.dumps(openai_server.requests[1]["messages"])
    assert "cut off at the output token limit" in told
    steps = [json.loads(line) for line in (Path(result.run_dir) / "steps.jsonl").read_text().splitlines()]
    [first] = [s for s in steps if s["step"] == 1]
    assert "cut off" in first["parse_error"]["message"] and not first.get("actions")
