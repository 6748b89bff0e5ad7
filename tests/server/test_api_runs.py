"""Agent runs over HTTP, in-process, with scripted models (registered as ``kite/<name>``) against the bundled
sites: live steps over SSE, resuming, confirmations approved and denied, stop, two runs at once, bad input."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from kite_browser.agent.config import BrowserConfig
from kite_browser.evals.sites import SitesServer
from tests.server.conftest import SECRET, follow, in_process, typed

# one API app (a module fixture) for the file, on one xdist worker
pytestmark = pytest.mark.xdist_group("api_runs")

CLICK = {"name": "click", "arguments": {"selector": "#increment"}}
READ_JS = {"name": "executeJS", "arguments": {"code": "return document.title"}}
SCROLL = {"name": "scroll", "arguments": {"direction": "down"}}


def done(answer: str) -> dict[str, Any]:
    return {"name": "done", "arguments": {"success": True, "answer": answer}}


@pytest.fixture(scope="module")
def api(
    browser_config: BrowserConfig, tmp_path_factory: pytest.TempPathFactory, static_dir: Path
) -> Iterator[TestClient]:
    """No modules; at most two runs at once."""
    with in_process(
        browser_config, tmp_path_factory.mktemp("runs"), static_dir, modules=[], **{"server.max_runs": 2}
    ) as client:
        yield client


def start(api: TestClient, **body: Any) -> dict[str, Any]:
    response = api.post("/api/runs", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def answering(api: TestClient, run_id: str, decision: str) -> Any:
    def on_event(event: dict[str, Any]) -> None:
        if event["event"] == "confirm":
            cid = event["data"]["id"]
            assert api.get(f"/api/runs/{run_id}").json()["confirmations"][0]["id"] == cid
            answered = api.post(f"/api/runs/{run_id}/confirmations/{cid}", json={"decision": decision})
            assert answered.status_code == 200 and answered.json()["approved"] == (decision == "approve")
            again = api.post(f"/api/runs/{run_id}/confirmations/{cid}", json={"decision": decision})
            typed(again, 409, "confirmation_closed")

    return on_event


def test_a_run_streams_every_step_and_a_confirmation_approved_over_http(
    api: TestClient, sites: SitesServer, model: Any
) -> None:
    name = model("approve", [CLICK, READ_JS, done("count is 1")])
    run = start(
        api, task="press increment, read the title", start_url=sites.url("/test/counter.html"), model=name
    )
    assert run["status"] == "running" and run["model"] == name and run["secrets"] == []
    events = follow(api, run["id"], on_event=answering(api, run["id"], "approve"))
    assert [e["id"] for e in events] == list(range(1, len(events) + 1))
    kinds = [e["event"] for e in events]
    assert kinds[0] == "start" and kinds[-1] == "finish" and kinds.count("observe") == 3
    assert kinds.count("confirm") == 1 and kinds.index("confirm") < kinds.index("confirmed")
    confirm = next(e["data"] for e in events if e["event"] == "confirm")
    assert confirm["action"]["action"] == "executeJS" and confirm["level"] == "confirm" and confirm["reasons"]
    assert "executeJS" in confirm["description"] and confirm["url"].endswith("/test/counter.html")
    # its step (the READ_JS step: its decision follows the answer), its action and target as the TUI words them
    after = kinds.index("confirmed")
    decided = next(e["data"] for e in events[after:] if e["event"] == "decision")
    assert confirm["step"] == decided["step"] == 2 and events[after]["data"]["step"] == 2
    assert confirm["action_text"] == 'executeJS code="return document.title"'
    assert confirm["target"] == ""  # executeJS names no target (was "(no element: -)")
    # the finish event says how the run ended, as GET /api/runs/{id} does
    assert {k: events[-1]["data"][k] for k in ("status", "error")} == {"status": "finished", "error": None}
    results = [e["data"] for e in events if e["event"] == "result"]
    assert [r["ok"] for r in results] == [True, True, True]
    shown = api.get(f"/api/runs/{run['id']}").json()
    assert shown["status"] == "finished" and shown["result"]["answer"] == "count is 1" and shown["success"]
    assert [s["step"] for s in shown["steps"]] == [1, 2, 3] and shown["events"] == len(events)
    assert shown["steps"][0]["actions"][0]["ok"] and "click" in shown["steps"][0]["actions"][0]["action"]
    assert shown["steps"][1]["actions"][0]["level"] == "confirm" and shown["confirmations"] == []

    # resume after event 3: the rest, from 4, and the stream of a finished run ends
    rest = follow(api, run["id"], last_id=3)
    assert [e["id"] for e in rest] == list(range(4, len(events) + 1)) and rest == events[3:]

    shot = api.get(shown["steps"][0]["screenshot_url"])
    assert shot.status_code == 200 and shot.headers["content-type"] == "image/png"
    assert shot.content.startswith(b"\x89PNG")
    typed(api.get(f"/api/runs/{run['id']}/screenshots/99"), 404, "unknown_screenshot")
    typed(api.get(f"/api/runs/{run['id']}/screenshots/..%2F..%2Frun.json"), 404, "not_found")
    typed(api.get(f"/api/runs/{run['id']}/screenshots/-1"), 422, "invalid_request")
    record = api.get(f"/api/runs/{run['id']}/record").json()
    assert record["run"]["result"]["answer"] == "count is 1" and len(record["steps"]) == 4  # 0 = start URL
    assert "steps.jsonl" in record["files"] and "screenshots/step-001.png" in record["files"]
    worded = [a["action_text"] for step in record["steps"] for a in step["actions"]]
    assert worded == [
        f'navigate url="{sites.url("/test/counter.html")}"',
        'click selector="#increment"',
        'executeJS code="return document.title"',
        'done success=True answer="count is 1"',
    ]
    assert api.get(f"/api/runs/{run['id']}/record/steps.jsonl").content.count(b"\n") == 4
    bad_paths = ("..%2F..%2F..%2Fetc%2Fpasswd", "%2Fetc%2Fpasswd", "screenshots%2F..%2F..%2F..%2Fx")
    for bad in (*bad_paths, "steps.jsonl%00.png", "x" * 5000):  # a NUL or an overlong name: was a 500
        typed(api.get(f"/api/runs/{run['id']}/record/{bad}"), 400, "invalid_path")
    typed(api.get(f"/api/runs/{run['id']}/record/nothing.txt"), 404, "unknown_file")
    assert api.get("/api/runs").json()["runs"][0]["id"] == run["id"]


def test_a_confirmation_denied_over_http_is_not_run(api: TestClient, sites: SitesServer, model: Any) -> None:
    name = model("deny", [READ_JS, done("not allowed")])
    run = start(api, task="read the title", start_url=sites.url("/test/counter.html"), model=name)
    events = follow(api, run["id"], on_event=answering(api, run["id"], "deny"))
    answered = next(e["data"] for e in events if e["event"] == "confirmed")
    assert answered["approved"] is False and "denied over HTTP" in answered["reason"]
    result = next(e["data"] for e in events if e["event"] == "result")
    assert result["ok"] is False and "declined" in result["message"]
    shown = api.get(f"/api/runs/{run['id']}").json()
    assert shown["result"]["declined"][0]["outcome"] == "declined" and not shown["success"]


def test_stop_mid_run_saves_the_record(api: TestClient, sites: SitesServer, model: Any) -> None:
    name = model("endless", [SCROLL] * 50, latency_s=0.05)
    run = start(
        api, task="scroll forever", start_url=sites.url("/test/scrollable.html"), model=name, max_steps=50
    )
    seen: list[str] = []

    def stop_after_first_result(event: dict[str, Any]) -> None:
        seen.append(event["event"])
        if event["event"] == "result" and seen.count("result") == 1:
            stopped = api.post(f"/api/runs/{run['id']}/stop")
            assert stopped.status_code == 200 and stopped.json()["status"] == "stopped"

    events = follow(api, run["id"], on_event=stop_after_first_result)
    assert events[-1]["event"] == "finish" and events[-1]["data"]["result"]["stop_reason"] == "interrupted"
    assert events[-1]["data"]["status"] == "stopped" and events[-1]["data"]["error"] is None
    shown = api.get(f"/api/runs/{run['id']}").json()
    assert shown["status"] == "stopped" and shown["step_count"] < 50
    assert api.get(f"/api/runs/{run['id']}/record").json()["run"]["result"]["stop_reason"] == "interrupted"
    assert api.post(f"/api/runs/{run['id']}/stop").json()["status"] == "stopped"  # stopping again: no-op


def test_two_runs_at_once_each_in_its_own_context(api: TestClient, sites: SitesServer, model: Any) -> None:
    url = sites.url("/test/counter.html")
    a = start(api, task="once", start_url=url, model=model("a", [CLICK, done("a")], latency_s=0.3))
    b = start(api, task="twice", start_url=url, model=model("b", [CLICK, CLICK, done("b")], latency_s=0.3))
    typed(api.post("/api/runs", json={"task": "a third", "model": "kite/a"}), 429, "too_many_runs")
    ends = {r["id"]: follow(api, r["id"])[-1]["data"]["result"] for r in (a, b)}
    assert ends[a["id"]]["answer"] == "a" and ends[b["id"]]["answer"] == "b"
    assert ends[a["id"]]["run_dir"] != ends[b["id"]]["run_dir"]
    shown = {r["id"]: api.get(f"/api/runs/{r['id']}").json() for r in (a, b)}
    assert shown[a["id"]]["created_at"] < shown[b["id"]]["finished_at"]
    assert shown[b["id"]]["created_at"] < shown[a["id"]]["finished_at"]  # they overlapped
    assert [len(shown[r["id"]]["steps"]) for r in (a, b)] == [2, 3]


def test_bad_run_input_gets_typed_errors(api: TestClient, sites: SitesServer, model: Any) -> None:
    ok = model("never", [done("x")])
    typed(api.post("/api/runs", json={"task": "x", "model": "no-such-model"}), 400, "unknown_model")
    typed(api.post("/api/runs", json={"task": "x", "model": "kite/nobody"}), 400, "unknown_model")
    typed(
        api.post("/api/runs", json={"task": "x", "model": ok, "start_url": "ftp://x"}),
        400,
        "invalid_start_url",
    )
    typed(
        api.post("/api/runs", json={"task": "x", "model": ok, "allowed_domains": ["http://"]}),
        400,
        "invalid_value",
    )
    missing = typed(api.post("/api/runs", json={"task": "x", "model": ok, "secrets": ["nope"]}), 400)
    assert missing["error"] == "unknown_secret" and missing["available"] == ["shop_pw"]
    assert SECRET not in str(missing)
    typed(api.post("/api/runs", json={"task": ""}), 422, "invalid_request")
    typed(api.post("/api/runs", json={"task": "x", "password": "y"}), 422, "invalid_request")
    typed(api.post("/api/runs", content=b'{"task": '), 400, "invalid_json")
    for path in (
        "/api/runs/nope",
        "/api/runs/nope/events",
        "/api/runs/nope/screenshots/1",
        "/api/runs/nope/record",
    ):
        typed(api.get(path), 404, "unknown_run")
    typed(api.post("/api/runs/nope/stop"), 404, "unknown_run")
    typed(api.post("/api/runs/nope/confirmations/c1", json={"decision": "approve"}), 404, "unknown_run")


def test_an_unreachable_start_url_fails_the_run_with_a_typed_error(
    api: TestClient, sites: SitesServer, model: Any
) -> None:
    run = start(api, task="x", start_url="http://127.0.0.1:9/", model=model("unreachable", [done("x")]))
    events = follow(api, run["id"])
    assert [e["event"] for e in events] == ["start", "finish"]
    shown = api.get(f"/api/runs/{run['id']}").json()
    assert shown["status"] == "failed" and shown["error"]["error"] == "start_url_unreachable"
    assert events[-1]["data"]["status"] == "failed" and events[-1]["data"]["error"] == shown["error"]
    typed(
        api.post(f"/api/runs/{run['id']}/confirmations/zzz", json={"decision": "deny"}),
        404,
        "unknown_confirmation",
    )
    typed(api.get(f"/api/runs/{run['id']}/events", headers={"Last-Event-ID": "x"}), 422, "invalid_request")


def test_a_secret_asked_for_by_name_is_typed_but_never_shown(
    api: TestClient, sites: SitesServer, model: Any
) -> None:
    typing = {"name": "type", "arguments": {"selector": "#full-name", "text": "<secret>shop_pw</secret>"}}
    read = {"name": "read", "arguments": {}}
    name = model("secret", [typing, read, done("typed")])
    run = start(
        api, task="type the password", start_url=sites.url("/forms/"), model=name, secrets=["shop_pw"]
    )
    assert run["secrets"] == ["shop_pw"]
    events = follow(api, run["id"])
    assert [e["data"]["ok"] for e in events if e["event"] == "result"] == [True, True, True], events
    shown = api.get(f"/api/runs/{run['id']}")
    record = api.get(f"/api/runs/{run['id']}/record")
    steps = api.get(f"/api/runs/{run['id']}/record/steps.jsonl")
    for text in (str(events), shown.text, record.text, steps.text):
        assert SECRET not in text
    assert "<secret>shop_pw</secret>" in str(events)
    # the control: a run that did not ask for the secret cannot type it
    other = start(
        api, task="type it", start_url=sites.url("/forms/"), model=model("nosecret", [typing, done("no")])
    )
    first = next(e["data"] for e in follow(api, other["id"]) if e["event"] == "result")
    assert first["ok"] is False and "shop_pw" in first["message"]


def test_a_run_id_still_answers_after_the_server_restarts(
    browser_config: BrowserConfig,
    tmp_path: Path,
    static_dir: Path,
    sites: SitesServer,
    model: Any,
) -> None:
    """``GET /api/runs/<id>`` with the id a run had while it ran keeps working after ``kite serve`` starts
    again (a bookmark, a stored id); its record is read back from disk."""
    name = model("restart", [done("still here")])
    with in_process(browser_config, tmp_path, static_dir, modules=[]) as first:
        run = start(first, task="say hi", start_url=sites.url("/test/counter.html"), model=name)
        follow(first, run["id"])
        assert first.get(f"/api/runs/{run['id']}").json()["result"]["answer"] == "still here"
    with in_process(browser_config, tmp_path, static_dir, modules=[]) as again:
        shown = again.get(f"/api/runs/{run['id']}")
        assert shown.status_code == 200, shown.text
        assert shown.json()["result"]["answer"] == "still here"
        record = again.get(f"/api/runs/{run['id']}/record/run.json")
        assert record.status_code == 200 and record.json()["result"]["answer"] == "still here"
        typed(again.get("/api/runs/0123456789"), 404, "unknown_run")
