"""The parts of ``kite mcp`` that need no browser: tool schemas and annotations, diffs, confirmer, HTTP rules."""

from __future__ import annotations

import json
from typing import Any

import httpx
import jsonschema
import pytest
from mcp import Client

from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.browser.observation import DialogInfo, Effects
from kite_browser.agent.cli import main
from kite_browser.agent.mcp.app import kite_mcp
from kite_browser.agent.mcp.confirm import ElicitConfirmer
from kite_browser.agent.mcp.results import ActOut, SnapshotOut, TabsOut, full_schema, output_schema, redacted
from kite_browser.agent.mcp.tools import TOOLS, mcp_tool
from kite_browser.agent.mcp.transport import BearerToken, check_http_options
from kite_browser.agent.modules.functions import USER_MODULE, FunctionModule, tool
from kite_browser.agent.modules.registry import ModuleRegistry
from kite_browser.safety.confirm import ConfirmRequest, Gate
from kite_browser.safety.rules import ConfirmLevel, Decision
from kite_browser.safety.secrets import Secret, SecretStore
from tests.mcp.conftest import error_of, text_of
from tests.mcp.scenarios import Answers


def test_schemas_come_from_the_models_and_annotations_are_true() -> None:
    click = mcp_tool(TOOLS["click"])
    args = TOOLS["click"].args
    assert args is not None
    expected = {k: v for k, v in args.model_json_schema()["properties"]["ref"].items() if k != "title"}
    assert click.input_schema["properties"]["ref"] == expected
    read_only = {n for n, s in TOOLS.items() if mcp_tool(s).annotations.read_only_hint}  # type: ignore[union-attr]
    assert read_only == {"snapshot", "screenshot", "wait_for", "read"}
    destructive = {n for n, s in TOOLS.items() if mcp_tool(s).annotations.destructive_hint}  # type: ignore[union-attr]
    assert destructive == {"click", "press_key", "evaluate", "upload_file", "drag"}
    assert all(not (s.hints.read_only and s.hints.open_world) for s in TOOLS.values())


def _request(action: str = "executeJS") -> ConfirmRequest:
    decision = Decision(
        level=ConfirmLevel.CONFIRM, reasons=["executeJS always needs the user's confirmation"]
    )
    return ConfirmRequest(action={"action": action, "code": "1"}, decision=decision, url="http://a/")


async def test_confirmer_approves_by_flag_and_otherwise_says_how_to_allow() -> None:
    assert (await ElicitConfirmer(["confirm"]).confirm(_request())).approved
    assert (await ElicitConfirmer(["executeJS"]).confirm(_request())).approved
    refused = await ElicitConfirmer().confirm(_request())  # no MCP request in flight: cannot ask anyone
    assert not refused.approved and "--approve confirm" in refused.reason
    with pytest.raises(UsageError):
        ElicitConfirmer(["block"])


def test_http_needs_a_token_off_loopback(capsys: pytest.CaptureFixture[str]) -> None:
    check_http_options("127.0.0.1", None)
    check_http_options("::1", None)
    check_http_options("0.0.0.0", "s3cret")
    with pytest.raises(UsageError, match="--token"):
        check_http_options("0.0.0.0", None)
    assert main(["mcp", "--http", "--host", "192.168.1.5"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("kite: error:") and "--token" in err and len(err.splitlines()) == 1


async def test_bearer_token_is_required_when_given() -> None:
    async def app(scope: dict, receive: object, send: object) -> None:  # type: ignore[type-arg]
        await send({"type": "http.response.start", "status": 200, "headers": []})  # type: ignore[operator]
        await send({"type": "http.response.body", "body": b"ok"})  # type: ignore[operator]

    transport = httpx.ASGITransport(app=BearerToken(app, "s3cret"))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        assert (await client.post("/mcp")).status_code == 401
        assert (await client.post("/mcp", headers={"Authorization": "Bearer nope"})).status_code == 401
        ok = await client.post("/mcp", headers={"Authorization": "Bearer s3cret"})
        assert ok.status_code == 200 and ok.text == "ok"


def greet(name: str) -> str:
    """Say hello to someone."""
    return f"hello {name}"


def forget(name: str) -> str:
    """Forget someone (asks first)."""
    return f"forgot {name}"


async def test_enabled_modules_tools_are_offered_and_confirmed_by_elicitation(kite_config: Any) -> None:
    config = kite_config()
    module = FunctionModule([tool(greet, read_only=True), forget])
    registry = ModuleRegistry(
        config, gate=Gate.from_config(config.safety), given={USER_MODULE: module}, names=[USER_MODULE]
    )
    answers = Answers(True, False)
    async with kite_mcp(config, registry=registry) as kite:
        async with Client(kite.server, mode="legacy", elicitation_callback=answers) as c:
            listed = {t.name: t for t in (await c.list_tools()).tools}
            names = list(listed)
            assert names[: len(TOOLS)] == list(TOOLS) and {"greet", "forget"} <= set(names)
            greet_hints, forget_hints = listed["greet"].annotations, listed["forget"].annotations
            assert (
                greet_hints and greet_hints.read_only_hint is True and greet_hints.destructive_hint is False
            )
            assert forget_hints and forget_hints.read_only_hint is False and forget_hints.destructive_hint
            hello = await c.call_tool("greet", {"name": "Ada"})
            assert not hello.is_error and "hello Ada" in text_of(hello)
            assert "forgot Ada" in text_of(await c.call_tool("forget", {"name": "Ada"}))
            assert error_of(await c.call_tool("forget", {"name": "Bob"}))["error"] == "declined"
            assert error_of(await c.call_tool("greet", {"name": 3}))["error"] == "invalid_arguments"
        assert not kite.hub.pool.started  # no browser was started for module tools
    decisions = [r for r in kite.record.read() if r["event"] == "decision"]
    assert [(d["tool"], d["allowed"]) for d in decisions] == [("forget", True), ("forget", False)]
    assert "forget" in answers.messages[0]


async def test_builtin_modules_tools_carry_the_hints_their_modules_declare(kite_config: Any) -> None:
    """chrome and javascript declare each tool's hints; MCP lists them as annotations (no browser starts)."""
    config = kite_config()
    registry = ModuleRegistry(config, gate=Gate.from_config(config.safety), names=["chrome", "javascript"])
    async with kite_mcp(config, registry=registry) as kite:
        async with Client(kite.server, mode="legacy") as c:
            hints = {t.name: t.annotations for t in (await c.list_tools()).tools}
    assert {n for n in hints if n.startswith("chrome_")} == set(registry.tool_hints()) - {"run_javascript"}
    read_only = {n for n, a in hints.items() if a and a.read_only_hint}
    assert read_only >= {"chrome_get_text", "chrome_get_content", "chrome_screenshot", "chrome_list_tabs"}
    assert not read_only & {"chrome_click", "chrome_navigate", "chrome_evaluate", "run_javascript"}
    for name in ("chrome_click", "chrome_evaluate", "chrome_close", "run_javascript"):
        assert hints[name] and hints[name].destructive_hint is True, name
    for name in ("chrome_navigate", "chrome_type", "chrome_fill"):
        assert hints[name] and hints[name].destructive_hint is False and hints[name].open_world_hint, name
    assert all(
        a and not (a.read_only_hint and a.open_world_hint)
        for n, a in hints.items()
        if n.startswith("chrome_")
    )


def test_output_schemas_compact_and_full_accept_the_data_and_the_full_one_checks_it() -> None:
    """One source: both forms come from the output model; a real result validates against both, and the
    whole schema refuses what the model would (a wrong ``page``, an unknown dialog type)."""
    effects = Effects(navigated=True, url_after="http://x/", dialog=DialogInfo(type="alert", message="hi"))
    out = ActOut(ok=True, message="clicked", changed=True, effects=effects, data={"value": 42}, page="diff")
    data = out.model_dump(mode="json")
    compact, full = output_schema(ActOut), full_schema(ActOut)
    jsonschema.validate(data, compact)
    jsonschema.validate(data, full)
    assert compact["properties"]["effects"] == {"type": "object"} and "$defs" in full
    assert compact["properties"]["page"]["enum"] == ["unchanged", "diff", "snapshot"]
    for bad in ({**data, "page": "all"}, {**data, "effects": {**data["effects"], "dialog": {"type": "x"}}}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, full)
    tab = output_schema(TabsOut)
    assert tab == {"type": "object", "properties": {"tabs": {"type": "array"}}}
    assert "title" in output_schema(SnapshotOut)["properties"]  # a field named title is kept


def test_redacted_takes_a_secret_out_of_every_string_key_and_number() -> None:
    secrets = SecretStore([Secret("pin", "918273")])
    data = {
        "url": "http://x/?q=918273",
        "918273": 1,
        "value": 918273,
        "n": 5,
        "ok": True,
        "list": ["a 918273"],
    }
    out = redacted(data, secrets.redact)
    assert "918273" not in json.dumps(out)
    assert out["n"] == 5 and out["ok"] is True and out["value"] == "<secret>pin</secret>"
