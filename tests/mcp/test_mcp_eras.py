"""Both protocol eras the installed SDK speaks, in-process (no browser: a user tool that needs confirmation):
what ``server/discover`` names, and 2026-07-28 confirmations as InputRequiredResult rounds."""

from __future__ import annotations

from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from kite_browser.agent.mcp.app import kite_mcp
from kite_browser.agent.modules.functions import USER_MODULE, FunctionModule
from kite_browser.agent.modules.registry import ModuleRegistry
from kite_browser.safety.confirm import Gate
from tests.mcp.conftest import error_of, text_of
from tests.mcp.scenarios import Answers

MODERN = "2026-07-28"
YES = types.ElicitResult(action="accept", content={"approve": True})


def forget(name: str) -> str:
    """Forget someone (asks first)."""
    return f"forgot {name}"


def _registry(config: Any) -> ModuleRegistry:
    module = FunctionModule([forget])
    return ModuleRegistry(
        config, gate=Gate.from_config(config.safety), given={USER_MODULE: module}, names=[USER_MODULE]
    )


async def test_discover_names_2026_unless_isolation_needs_sessions(kite_config: Any) -> None:
    config = kite_config()
    async with kite_mcp(config, registry=_registry(config)) as kite:
        async with Client(kite.server) as c:  # auto: probes server/discover
            assert c.protocol_version == MODERN
            found = types.DiscoverResult.model_validate(await c.session.send_discover(MODERN))
            assert found.supported_versions == list(MODERN_PROTOCOL_VERSIONS)  # initialize reaches the rest
        async with Client(kite.server, mode="legacy") as c:  # an older client still gets its handshake
            assert c.protocol_version == HANDSHAKE_PROTOCOL_VERSIONS[-1]
            assert "forget" in [t.name for t in (await c.list_tools()).tools]
    async with kite_mcp(config, registry=_registry(config), isolated=True) as kite:
        async with Client(kite.server, mode=MODERN) as c:
            found = types.DiscoverResult.model_validate(await c.session.send_discover(MODERN))
            assert found.supported_versions == list(HANDSHAKE_PROTOCOL_VERSIONS)
            assert text_of(await c.call_tool("forget", {"name": "x"})).startswith('{"error"')  # still served


async def test_2026_confirmation_is_an_input_round_answered_once(kite_config: Any) -> None:
    config = kite_config()
    answers = Answers(True, False)
    async with kite_mcp(config, registry=_registry(config)) as kite:
        async with Client(kite.server, mode=MODERN, elicitation_callback=answers) as c:
            assert "forgot Ada" in text_of(await c.call_tool("forget", {"name": "Ada"}))
            assert error_of(await c.call_tool("forget", {"name": "Bob"}))["error"] == "declined"
            assert len(answers.messages) == 2 and "forget" in answers.messages[0]

            s = c.session
            asked = await s.call_tool("forget", {"name": "Cy Young"}, allow_input_required=True)
            assert isinstance(asked, types.InputRequiredResult) and asked.input_requests
            question = asked.input_requests["confirm"]
            assert isinstance(question, types.ElicitRequest) and "forget" in question.params.message
            state = asked.request_state
            assert (
                state and "Cy Young" not in state
            )  # sealed (a space never appears in the base64url state, so no chance match)

            with pytest.raises(MCPError):  # the state is bound to the tool and its arguments
                await s.call_tool(
                    "forget", {"name": "Eve"}, input_responses={"confirm": YES}, request_state=state
                )
            with pytest.raises(MCPError):
                await s.call_tool(
                    "forget",
                    {"name": "Cy Young"},
                    input_responses={"confirm": YES},
                    request_state=state + "x",
                )
            done = await s.call_tool(
                "forget", {"name": "Cy Young"}, input_responses={"confirm": YES}, request_state=state
            )
            assert "forgot Cy" in text_of(done)
            again = await s.call_tool(  # the same answer replayed: asked anew, nothing ran
                "forget",
                {"name": "Cy Young"},
                input_responses={"confirm": YES},
                request_state=state,
                allow_input_required=True,
            )
            assert isinstance(again, types.InputRequiredResult) and again.request_state != state
        async with Client(kite.server, mode=MODERN) as c:  # no elicitation declared: refused, says how
            refused = error_of(await c.call_tool("forget", {"name": "Dee"}))
            assert refused["error"] == "refused" and "--approve confirm" in refused["message"]
    records = kite.record.read()
    decisions = [(r["action"]["args"]["name"], r["allowed"]) for r in records if r["event"] == "decision"]
    assert decisions == [("Ada", True), ("Bob", False), ("Cy Young", True), ("Dee", False)]
    asked = [r["arguments"]["name"] for r in records if r["event"] == "input_required"]
    assert asked == [
        "Ada",
        "Bob",
        "Cy Young",
        "Cy Young",
    ]  # the replay was asked again; Dee's client cannot be asked


TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


async def test_request_meta_reaches_the_innermost_middleware_at_both_revisions(kite_config: Any) -> None:
    """Kite rewrites no request: a call's ``_meta`` (the trace context the SDK's span middleware reads) is
    still there after Kite's own middleware, at 2026-07-28 and in the handshake era."""
    config = kite_config()
    seen: list[dict[str, Any]] = []

    async def spy(ctx: Any, call_next: Any) -> Any:
        meta = getattr(ctx, "meta", None)
        if meta is not None:
            seen.append(meta.model_dump(by_alias=True) if hasattr(meta, "model_dump") else dict(meta))
        return await call_next(ctx)

    async with kite_mcp(config, registry=_registry(config)) as kite:
        kite.server.middleware.append(spy)
        for mode in (MODERN, "legacy"):
            async with Client(kite.server, mode=mode) as c:
                await c.call_tool("forget", {"name": "x"}, meta={"traceparent": TRACEPARENT})
    assert sum(1 for m in seen if m.get("traceparent") == TRACEPARENT) == 2
