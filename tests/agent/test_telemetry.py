"""OpenTelemetry: a run's spans (run > step > model call, action), their attributes, the caller's trace joined,
no secret on any span; with telemetry off, no OpenTelemetry import and no span; a real ``kite run`` sending
OTLP/HTTP to a receiver in the test."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp_types import RequestParamsMeta
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from kite_browser.agent import Agent
from kite_browser.agent.base import telemetry
from kite_browser.safety.secrets import SecretStore
from tests.mcp.conftest import mcp_home as mcp_home
from tests.mcp.conftest import server_argv, server_env, wait_until
from tests.server.conftest import follow, in_process
from tests.server.conftest import model as model
from tests.server.conftest import static_dir as static_dir

ROOT = Path(__file__).resolve().parents[2]
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_ID = "00f067aa0ba902b7"
TRACEPARENT = f"00-{TRACE_ID}-{PARENT_ID}-01"
SECRET = "Zq7-secret-Pv42"


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    memory = InMemorySpanExporter()
    telemetry.configure(
        exporter=memory, prompts=True, install=False
    )  # the worker's other tests keep no global
    try:
        yield memory
    finally:
        telemetry.shutdown()


def _by_name(spans: list[ReadableSpan], prefix: str) -> list[ReadableSpan]:
    return [s for s in spans if s.name.startswith(prefix)]


def _attrs(span: ReadableSpan) -> dict[str, Any]:
    return dict(span.attributes or {})


async def test_a_run_is_one_trace_of_steps_model_calls_and_actions(
    exporter, make_config, ctx_session, sites, scripted_model
):
    scripted_model.script(
        [
            {"name": "type", "arguments": {"selector": "#full-name", "text": "<secret>pin</secret>"}},
            {"name": "click", "arguments": {"selector": "#subscribe"}},
            {"name": "done", "arguments": {"success": True, "answer": "typed"}},
        ]
    )
    config = make_config(**{"llm.model": "kite/scripted", "telemetry.traceparent": TRACEPARENT})
    store = SecretStore.from_sources(config.safety, cli=[f"pin={SECRET}"])
    result = await Agent(config, context=ctx_session, secrets=store).run(
        "fill the form", start_url=sites.url("/forms/")
    )
    assert result.success, result
    spans = exporter.get_finished_spans()
    (run,) = _by_name(spans, "kite.run")
    steps = _by_name(spans, "kite.step")
    chats = _by_name(spans, "chat ")
    actions = _by_name(spans, "kite.action ")
    assert len(steps) == 3 and len(chats) == 3, [s.name for s in spans]
    assert [s.name for s in actions] == ["kite.action type", "kite.action click", "kite.action done"]

    # one trace, joined to the caller's: the run's parent is the TRACEPARENT span
    assert {s.context.trace_id for s in spans} == {int(TRACE_ID, 16)}
    assert run.parent is not None and run.parent.span_id == int(PARENT_ID, 16)
    assert all(s.parent is not None and s.parent.span_id == run.context.span_id for s in steps)
    step_ids = {s.context.span_id for s in steps}
    assert all(s.parent is not None and s.parent.span_id in step_ids for s in [*chats, *actions])

    a = _attrs(run)
    assert a["kite.success"] is True and a["kite.stop_reason"] == "done" and a["kite.steps"] == 3
    c = _attrs(chats[0])
    assert c["gen_ai.operation.name"] == "chat" and c["gen_ai.request.model"] == "kite/scripted"
    assert c["gen_ai.system"] == "kite" and "gen_ai.usage.input_tokens" in c
    assert "fill the form" in c["gen_ai.input.messages"]  # prompts asked for: the (redacted) text is there
    typed = _attrs(actions[0])
    assert typed["kite.action.kind"] == "type" and typed["kite.safety.level"] == "auto"
    assert typed["kite.safety.allowed"] is True and typed["kite.action.ok"] is True

    everything = json.dumps([_attrs(s) for s in spans] + [s.name for s in spans])
    assert SECRET not in everything, "a secret reached a span"
    assert await ctx_session.page.input_value("#full-name") == SECRET, "the real value was typed"


async def test_a_refused_action_span_says_the_level_and_the_decision(
    exporter, make_config, ctx_session, sites, scripted_model
):
    scripted_model.script(
        [
            {"name": "navigate", "arguments": {"url": "http://evil.example/steal"}},
            {"name": "done", "arguments": {"success": False, "answer": "blocked"}},
        ]
    )
    config = make_config(**{"llm.model": "kite/scripted", "safety.blocked_domains": ["evil.example"]})
    await Agent(config, context=ctx_session).run("go", start_url=sites.url("/shop/"))
    (nav,) = _by_name(exporter.get_finished_spans(), "kite.action navigate")
    a = _attrs(nav)
    assert a["kite.safety.allowed"] is False and a["kite.action.ok"] is False
    assert a["kite.safety.level"] == "block" and a["kite.action.error"] == "blocked"
    assert nav.status.status_code.name == "ERROR"


def test_telemetry_off_imports_no_opentelemetry_and_makes_no_span(tmp_path, sites):
    """A whole run in a fresh interpreter with no OTLP setting: OpenTelemetry is never imported."""
    code = f"""
import asyncio, sys
from kite_browser.agent import Agent, ScriptedModel, load_config
from kite_browser.agent.base import telemetry
config = load_config(overrides={{"run.runs_dir": {str(tmp_path / "runs")!r}, "run.screenshots": False,
    "browser.block_external_hosts": True}}, env={{}})
model = ScriptedModel([{{"action": "done", "success": True, "answer": "ok"}}])
result = asyncio.run(Agent(config, model=model).run("look", start_url={sites.url("/shop/")!r}))
print(result.success, telemetry.enabled(), sorted(m for m in sys.modules if m.split(".")[0] == "opentelemetry"))
"""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_") and k != "TRACEPARENT"}
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "True False []"


class _Receiver:
    """An OTLP/HTTP trace receiver: keeps every ExportTraceServiceRequest posted to /v1/traces."""

    def __init__(self) -> None:
        self.requests: list[ExportTraceServiceRequest] = []
        received = self.requests

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.path == "/v1/traces":
                    req = ExportTraceServiceRequest()
                    req.ParseFromString(body)
                    received.append(req)
                self.send_response(200 if self.path == "/v1/traces" else 404)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def spans(self) -> list[Any]:
        return [
            span
            for req in self.requests
            for rs in req.resource_spans
            for ss in rs.scope_spans
            for span in ss.spans
        ]

    def services(self) -> set[str]:
        return {
            a.value.string_value
            for req in self.requests
            for rs in req.resource_spans
            for a in rs.resource.attributes
            if a.key == "service.name"
        }


@pytest.fixture
def receiver() -> Iterator[_Receiver]:
    r = _Receiver()
    try:
        yield r
    finally:
        r.server.shutdown()


@pytest.mark.timeout(400)
def test_kite_run_sends_its_trace_by_otlp_http_into_the_callers_trace(tmp_path, sites, receiver):
    script = [
        {"name": "click", "arguments": {"selector": "#increment"}},
        {"name": "done", "arguments": {"success": True, "answer": "count is 1"}},
    ]
    (tmp_path / "script.json").write_text(json.dumps(script))
    argv = [
        "run",
        "press increment once",
        "--model",
        "kite/scripted",
        "--start-url",
        sites.url("/test/counter.html"),
    ]
    env = {
        **os.environ,
        "KITE_RUNS_DIR": str(tmp_path / "runs"),
        "KITE_HOME": str(tmp_path / "home"),
        "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url,
        "TRACEPARENT": TRACEPARENT,
    }
    proc = subprocess.run(
        [sys.executable, "-m", "tests.agent.cli_entry", str(tmp_path / "script.json"), "0", "--", *argv],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    spans = receiver.spans()
    names = [s.name for s in spans]
    assert names.count("kite.run") == 1 and names.count("kite.step") == 2, names
    assert "kite.action click" in names and "chat kite/scripted" in names
    assert {s.trace_id.hex() for s in spans} == {TRACE_ID}
    (run,) = [s for s in spans if s.name == "kite.run"]
    assert run.parent_span_id.hex() == PARENT_ID
    assert receiver.services() == {"kite"}


def test_an_http_api_run_joins_the_trace_of_the_request_that_started_it(
    exporter, browser_config, tmp_path, static_dir, sites, model
):
    name = model("traced", [{"name": "done", "arguments": {"success": True, "answer": "seen"}}])
    with in_process(browser_config, tmp_path, static_dir, modules=[]) as api:
        response = api.post(
            "/api/runs",
            json={"task": "look", "model": name, "start_url": sites.url("/shop/")},
            headers={"traceparent": TRACEPARENT},
        )
        assert response.status_code == 201, response.text
        events = follow(api, response.json()["id"])
    assert events[-1]["event"] == "finish" and events[-1]["data"]["result"]["success"]
    spans = exporter.get_finished_spans()
    (run,) = _by_name(spans, "kite.run")
    assert run.context.trace_id == int(TRACE_ID, 16)
    assert int(PARENT_ID, 16) in _ancestors(run, spans), "the run hangs under the request's caller"


def _ancestors(span: ReadableSpan, spans: list[ReadableSpan]) -> list[int]:
    """The span ids above ``span``: through the spans recorded here, ending at the first one recorded elsewhere
    (the server's own request span may come between: FastAPI traces its requests once a provider is set)."""
    by_id = {s.context.span_id: s for s in spans}
    out: list[int] = []
    parent = span.parent
    while parent is not None:
        out.append(parent.span_id)
        above = by_id.get(parent.span_id)
        parent = above.parent if above is not None else None
    return out


@pytest.mark.timeout(400)
async def test_kite_mcp_tool_calls_join_the_trace_in_the_requests_meta(mcp_home, sites, receiver):
    argv = server_argv(mcp_home)
    env = {**server_env(uuid.uuid4().hex), "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url}
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env)
    async with Client(params) as client:
        result = await client.call_tool(
            "navigate", {"url": sites.url("/shop/")}, meta=RequestParamsMeta(traceparent=TRACEPARENT)
        )
        assert not result.is_error
    wait_until(lambda: any(s.name == "kite.action navigate" for s in receiver.spans()), 60, "the spans")
    spans = receiver.spans()
    (call,) = [s for s in spans if s.name == "tools/call navigate"]  # the SDK's server span
    (act,) = [s for s in spans if s.name == "kite.action navigate"]
    seen = [(s.name, s.trace_id.hex(), s.span_id.hex(), s.parent_span_id.hex()) for s in spans]
    assert call.trace_id.hex() == TRACE_ID and call.parent_span_id.hex() == PARENT_ID, seen
    assert act.trace_id.hex() == TRACE_ID, seen
    by_id = {s.span_id: s for s in spans}
    parent = by_id.get(act.parent_span_id)
    while parent is not None and parent.span_id != call.span_id:
        parent = by_id.get(parent.parent_span_id)
    assert parent is call, "Kite's action span hangs under the request's span"
