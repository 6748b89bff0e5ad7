"""The module endpoints, tool calls, auth, the panel's static files and bad input, in-process."""

from __future__ import annotations

import base64

from fastapi.testclient import TestClient

from tests.server.conftest import TOKEN, typed


def test_every_api_path_needs_the_token_but_the_panel_does_not(api: TestClient) -> None:
    for headers in ({"Authorization": ""}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
        typed(api.get("/api/modules", headers=headers), 401, "unauthorized")
        typed(api.post("/api/tools/chrome_launch", headers=headers, json={}), 401, "unauthorized")
        typed(api.get("/api/openapi.json", headers=headers), 401, "unauthorized")
    assert api.get("/api/modules", headers={"Authorization": ""}).headers["www-authenticate"] == "Bearer"
    assert api.get("/api/modules", params={"access_token": TOKEN}, headers={"Authorization": ""}).is_success
    evil = {"Origin": "http://evil.test", "Access-Control-Request-Method": "GET"}
    for answer in (api.options("/api/modules", headers=evil), api.get("/api/modules", headers=evil)):
        assert "access-control-allow-origin" not in answer.headers  # CORS closed by default
    page = api.get("/", headers={"Authorization": ""})
    assert page.status_code == 200 and "<p>panel</p>" in page.text


def test_modules_list_detail_and_web_component(api: TestClient) -> None:
    listed = api.get("/api/modules").json()["modules"]
    assert [m["name"] for m in listed] == ["chrome"]
    chrome = listed[0]
    assert chrome["status"] == "initialized" and chrome["web_component"] and chrome["http"]
    assert chrome["tool_count"] == len(chrome["tools"]) > 5 and "chrome_launch" in chrome["tools"]
    detail = api.get("/api/modules/chrome").json()
    assert [d["function"]["name"] for d in detail["definitions"]] == chrome["tools"]
    comp = api.get("/api/modules/chrome/web-component").json()
    assert comp["module_name"] == "chrome" and comp["panel_html"] and comp["panel_js"]
    tools = api.get("/api/tools").json()["tools"]
    assert {t["module"] for t in tools} == {"chrome"} and len(tools) == chrome["tool_count"]
    for path in ("/api/modules/nope", "/api/modules/nope/web-component"):
        body = typed(api.get(path), 404, "unknown_module")
        assert body["available"] == ["chrome"]


def test_tool_calls_and_the_chrome_router(api: TestClient) -> None:
    launched = api.post("/api/tools/chrome_launch", json={})
    assert launched.status_code == 200, launched.text
    browser, tab = launched.json()["browserId"], launched.json()["tabId"]
    try:
        assert [b["browserId"] for b in api.get("/api/modules/chrome/browsers").json()["browsers"]] == [
            browser
        ]
        one = api.get(f"/api/modules/chrome/browsers/{browser}").json()
        assert [t["tabId"] for t in one["tabs"]] == [tab]
        assert [
            t["tabId"] for t in api.get(f"/api/modules/chrome/browsers/{browser}/tabs").json()["tabs"]
        ] == [tab]
        shot = api.get(f"/api/modules/chrome/tabs/{tab}/screenshot").json()
        png = base64.b64decode(shot["data"] if "data" in shot else shot["base64"])
        assert png.startswith(b"\x89PNG")
        typed(api.get("/api/modules/chrome/tabs/nope/screenshot"), 404)
        typed(api.post("/api/tools/chrome_list_tabs", json={"browserId": "nope"}), 404)
        bad = typed(
            api.post("/api/tools/chrome_list_tabs", json={"browser": browser}), 400, "invalid_arguments"
        )
        assert bad["tool"] == "chrome_list_tabs"
        assert api.post(f"/api/modules/chrome/tabs/{tab}/close").status_code == 200
    finally:
        closed = api.post(f"/api/modules/chrome/browsers/{browser}/close")
    assert closed.status_code == 200, closed.text
    assert api.get("/api/modules/chrome/browsers").json()["browsers"] == []
    typed(api.post(f"/api/modules/chrome/browsers/{browser}/close"), 404)


def test_bad_input_gets_typed_errors_and_the_server_keeps_serving(api: TestClient) -> None:
    unknown = typed(api.post("/api/tools/no_such_tool", json={}), 404, "unknown_tool")
    assert "chrome_launch" in unknown["available"]
    typed(api.post("/api/tools/chrome_launch", content=b"{not json"), 400, "invalid_json")
    typed(
        api.post(
            "/api/tools/chrome_launch", content=b"{not json", headers={"content-type": "application/json"}
        ),
        400,
        "invalid_json",
    )
    typed(api.post("/api/tools/chrome_launch", json=[1, 2]), 422, "invalid_request")
    typed(api.post("/api/tools/chrome_launch", content=b"x" * 1_100_000), 413, "body_too_large")
    typed(api.get("/api/no/such/route"), 404, "not_found")
    typed(api.delete("/api/modules"), 405, "method_not_allowed")
    assert api.put("/api/runs").headers["allow"] == "GET, POST"
    assert api.get("/api/modules").status_code == 200


def test_a_body_sent_as_curl_d_sends_it_is_read_as_json(api: TestClient) -> None:
    """README's ``curl ... -d '{}'`` sends application/x-www-form-urlencoded: the JSON in it is read."""
    form = {"content-type": "application/x-www-form-urlencoded"}
    launched = api.post("/api/tools/chrome_launch", content=b"{}", headers=form)
    assert launched.status_code == 200, launched.text
    closed = api.post(
        "/api/tools/chrome_close",
        content=b'{"browserId": "%s"}' % launched.json()["browserId"].encode(),
        headers=form,
    )
    assert closed.status_code == 200, closed.text
    typed(api.post("/api/tools/chrome_launch", content=b"{bad", headers=form), 400, "invalid_json")
    typed(api.post("/api/tools/chrome_launch", content=b"{}", headers={"content-type": "text/csv"}), 422)


ROUTES = {
    "GET /api/modules",
    "GET /api/modules/{name}",
    "GET /api/modules/{name}/web-component",
    "GET /api/modules/chrome/browsers",
    "GET /api/modules/chrome/browsers/{browser_id}",
    "GET /api/modules/chrome/browsers/{browser_id}/tabs",
    "GET /api/modules/chrome/tabs/{tab_id}/screenshot",
    "POST /api/modules/chrome/browsers/{browser_id}/close",
    "POST /api/modules/chrome/tabs/{tab_id}/close",
    "GET /api/tools",
    "POST /api/tools/{tool_name}",
    "POST /api/runs",
    "GET /api/runs",
    "GET /api/runs/{run_id}",
    "GET /api/runs/{run_id}/events",
    "POST /api/runs/{run_id}/stop",
    "GET /api/runs/{run_id}/screenshots/{n}",
    "GET /api/runs/{run_id}/record",
    "GET /api/runs/{run_id}/record/{path}",
    "POST /api/runs/{run_id}/confirmations/{cid}",
    "GET /api/runs/{run_id}/live",
    "POST /api/runs/{run_id}/handover/{hid}",
    "POST /api/runs/{run_id}/input",
    "GET /api/tools-confirmations",
    "POST /api/tools-confirmations/{cid}",
    "GET /api/settings",
}
"""The routes of the issue (and GET /api/tools, the run record; issue 33's live view, the tool console's
questions and the settings page; the hand-over's answer and the person's input) — nothing more, nothing less."""


def test_the_openapi_spec_names_every_route_and_its_typed_errors(api: TestClient) -> None:
    spec = api.get("/api/openapi.json").json()
    documented = {f"{m.upper()} {p}" for p, ops in spec["paths"].items() for m in ops}
    assert documented == ROUTES
    error = spec["components"]["schemas"]["ErrorBody"]
    assert set(error["required"]) == {"error", "message"}
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            for code in ("400", "401", "404", "413", "422"):
                body = op["responses"][code]["content"]["application/json"]["schema"]
                assert body == {"$ref": "#/components/schemas/ErrorBody"}, (method, path, code)
    assert "HTTPValidationError" not in spec["components"]["schemas"]


def test_a_tool_console_answer_to_no_waiting_question_is_a_typed_404_or_409(api: TestClient) -> None:
    body = typed(api.post("/api/tools-confirmations/nope", json={"decision": "approve"}), 404)
    assert body["error"] == "unknown_confirmation" and "no tool call waits" in body["message"]
    api.app.state.kite.console.answered.add("gone")  # answered, or timed out
    closed = typed(api.post("/api/tools-confirmations/gone", json={"decision": "deny"}), 409)
    assert closed["error"] == "confirmation_closed" and closed["id"] == "gone"
