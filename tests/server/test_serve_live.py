"""A live ``kite serve`` subprocess (the real CLI; only the model is fake: ``kite/panel``, replies chosen by a
tag in the task, see panel_entry.py) driven over real HTTP: auth, modules, runs over SSE with confirmations,
two runs at once, stop, a client leaving mid-stream, refusal of a non-loopback address without a token, and a
graceful SIGTERM (runs stopped, records saved, no Chromium left)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from kite_browser.agent.config import BrowserConfig
from kite_browser.evals.sites import SitesServer
from tests.server.conftest import follow, sse_events, typed
from tests.server.panel_harness import ROOT, TOKEN, LiveServer, serve_config, serving

# a kite serve subprocess with its own Chromium, started once: every test of the file on one xdist worker
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("serve_live")]

JS = {"name": "executeJS", "arguments": {"code": "return document.title"}}
SCROLL = {"name": "scroll", "arguments": {"direction": "down"}}


def done(answer: str) -> dict[str, Any]:
    return {"name": "done", "arguments": {"success": True, "answer": answer}}


SCRIPTS = {
    "[count]": {"replies": [{"name": "click", "arguments": {"selector": "#increment"}}, JS, done("counted")]},
    "[deny]": {"replies": [JS, done("refused")]},
    "[a]": {"replies": [SCROLL, done("a")], "delays": [0.3, 0.3]},
    "[b]": {"replies": [SCROLL, SCROLL, done("b")], "delays": [0.3, 0.3, 0.3]},
    "[slow]": {"replies": [SCROLL] * 30, "delays": [0] + [0.5] * 29},
    "[cache]": {"replies": [{"name": "click", "arguments": {"selector": "#increment"}}, done("counted")]},
}


@pytest.fixture(scope="module")
def live(
    tmp_path_factory: pytest.TempPathFactory, sites: SitesServer, browser_config: BrowserConfig
) -> Iterator[LiveServer]:
    home = tmp_path_factory.mktemp("live-serve")
    config = serve_config(
        home, browser_config, modules=["chrome"], module_settings={"artifacts_dir": str(home / "artifacts")}
    )
    with serving(home, SCRIPTS, config) as server:
        yield server


def start(live: LiveServer, task: str, url: str) -> str:
    response = live.client.post("/api/runs", json={"task": task, "start_url": url})
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


def answer_with(live: LiveServer, run_id: str, decision: str) -> Any:
    def on_event(event: dict[str, Any]) -> None:
        if event["event"] == "confirm":
            url = f"/api/runs/{run_id}/confirmations/{event['data']['id']}"
            assert live.client.post(url, json={"decision": decision}).status_code == 200

    return on_event


def test_auth_modules_and_the_panel(live: LiveServer) -> None:
    bare = httpx.Client(base_url=live.base, timeout=30)
    with bare:
        typed(bare.get("/api/modules"), 401, "unauthorized")
        typed(bare.get("/api/modules", headers={"Authorization": "Bearer wrong"}), 401, "unauthorized")
        typed(bare.get("/api/runs", headers={"Authorization": TOKEN}), 401, "unauthorized")
        page = bare.get("/")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    modules = live.client.get("/api/modules").json()["modules"]
    assert [m["name"] for m in modules] == ["chrome"] and modules[0]["status"] == "initialized"
    assert live.client.get("/api/modules/chrome/web-component").json()["module_name"] == "chrome"
    assert live.client.get("/api/modules/chrome/browsers").json() == {"browsers": []}
    typed(live.client.post("/api/tools/chrome_list_tabs", json={"browserId": "b9"}), 404)
    spec = live.client.get("/api/openapi.json").json()
    assert "/api/runs/{run_id}/events" in spec["paths"] and "/api/modules/chrome/browsers" in spec["paths"]


def test_a_run_over_sse_approved_and_one_denied(live: LiveServer, sites: SitesServer) -> None:
    url = sites.url("/test/counter.html")
    approved = start(live, "[count] press increment and read the title", url)
    events = follow(live.client, approved, on_event=answer_with(live, approved, "approve"))
    kinds = [e["event"] for e in events]
    assert kinds[0] == "start" and kinds[-1] == "finish" and kinds.count("observe") == 3
    assert [e["data"]["ok"] for e in events if e["event"] == "result"] == [True, True, True]
    assert events[-1]["data"]["result"]["answer"] == "counted"
    denied = start(live, "[deny] read the title", url)
    events = follow(live.client, denied, on_event=answer_with(live, denied, "deny"))
    assert [e["data"]["approved"] for e in events if e["event"] == "confirmed"] == [False]
    assert live.client.get(f"/api/runs/{denied}").json()["result"]["declined"][0]["outcome"] == "declined"


def test_two_runs_at_once_a_stop_and_a_client_leaving_mid_stream(
    live: LiveServer, sites: SitesServer
) -> None:
    url = sites.url("/test/scrollable.html")
    a, b, slow = (
        start(live, "[a] scroll", url),
        start(live, "[b] scroll", url),
        start(live, "[slow] scroll", url),
    )
    with live.client.stream("GET", f"/api/runs/{slow}/events") as response:  # leave after the first event
        first = next(sse_events(response.iter_lines()))
    assert first["id"] == 1 and first["event"] == "start"
    ends = {run: follow(live.client, run)[-1]["data"]["result"]["answer"] for run in (a, b)}
    assert ends == {a: "a", b: "b"}
    shown = {run: live.client.get(f"/api/runs/{run}").json() for run in (a, b)}
    assert (
        shown[a]["created_at"] < shown[b]["finished_at"] and shown[b]["created_at"] < shown[a]["finished_at"]
    )
    stopped = live.client.post(f"/api/runs/{slow}/stop").json()
    assert stopped["status"] == "stopped" and stopped["result"]["stop_reason"] == "interrupted"
    assert follow(live.client, slow)[-1]["event"] == "finish"


def test_a_run_with_cache_replays_the_second_time_with_no_model_call(
    live: LiveServer, sites: SitesServer
) -> None:
    """POST /api/runs {cache: true} runs through the task cache, as kite run --cache does: the first run is
    the agent's (2 model calls) and is saved; the second replays it with none and says what it saved."""
    body = {"task": "[cache] press increment", "start_url": sites.url("/test/counter.html"), "cache": True}
    runs = []
    for _ in range(2):
        response = live.client.post("/api/runs", json=body)
        assert response.status_code == 201, response.text
        run_id = str(response.json()["id"])
        events = follow(live.client, run_id)
        kinds = [e["event"] for e in events]
        assert kinds[0] == "start" and kinds[-1] == "finish" and kinds.count("finish") == 1
        runs.append(live.client.get(f"/api/runs/{run_id}").json())
    first, second = (r["result"] for r in runs)
    assert first["success"] and first["model_calls"] == 2 and first["model_calls_saved"] is None
    assert second["success"] and second["model_calls"] == 0 and second["model_calls_saved"] == 2
    assert second["steps_by"] == {"replayed": 1, "healed": 0, "agent": 0}
    assert runs[1]["status"] == "finished" and "cache entry" in second["message"]
    record = live.client.get(f"/api/runs/{runs[1]['id']}/record").json()
    assert record["run"]["replay"] is True and record["steps"][-1]["by"] == "replayed"


def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_sigterm_stops_runs_saves_records_and_leaves_no_browser(live: LiveServer, sites: SitesServer) -> None:
    run = start(live, "[slow] scroll", sites.url("/test/scrollable.html"))
    with live.client.stream("GET", f"/api/runs/{run}/events") as response:
        for event in sse_events(response.iter_lines()):
            if event["event"] == "start":
                run_dir = Path(event["data"]["run_dir"])
            if event["event"] == "result":
                break
    children = _descendants(live.proc.pid)
    assert children, "the run's Chromium should be running"
    assert live.stop() == 0, "".join(live.log)
    assert not [pid for pid in children if _alive(pid)]
    record = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    assert record["result"]["stop_reason"] == "interrupted" and record["finished_at"]


def test_a_public_address_without_a_token_is_refused_with_one_line() -> None:
    env = {k: v for k, v in os.environ.items() if k != "KITE_SERVER_TOKEN"}
    env["PYTHONPATH"] = str(ROOT)
    for args, says in ((["--host", "0.0.0.0"], "--token"), (["--port", "70000"], "port")):
        proc = subprocess.run(
            [sys.executable, "-m", "kite_browser.agent", "serve", *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
        assert proc.returncode == 2 and says in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
