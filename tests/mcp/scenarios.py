"""Scenarios run through the SDK's own client, over stdio and over streamable HTTP alike."""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema
import mcp_types as types
from mcp import Client

from kite_browser.agent.mcp.results import full_schema
from kite_browser.agent.mcp.tools import TOOLS
from kite_browser.evals.sites import SitesServer
from tests.mcp.conftest import error_of, ref, text_of

TOOL_NAMES = {
    "navigate",
    "snapshot",
    "click",
    "type",
    "select",
    "hover",
    "press_key",
    "scroll",
    "go_back",
    "tabs",
    "screenshot",
    "wait_for",
    "read",
    "evaluate",
    "upload_file",
    "drag",
    "dialog",
}


class Answers:
    """An elicitation callback answering from a script: True approve, False decline; records the messages."""

    def __init__(self, *answers: bool) -> None:
        self.answers = list(answers)
        self.messages: list[str] = []

    async def __call__(self, ctx: Any, params: Any) -> types.ElicitResult:
        self.messages.append(params.message)
        if self.answers.pop(0):
            return types.ElicitResult(action="accept", content={"approve": True})
        return types.ElicitResult(action="decline")


async def check_tools(c: Client) -> None:
    tools = {t.name: t for t in (await c.list_tools()).tools}
    assert set(tools) >= TOOL_NAMES
    snap, click = tools["snapshot"], tools["click"]
    assert snap.annotations and snap.annotations.read_only_hint is True
    assert snap.input_schema["properties"]["visible_only"]["default"] is True
    assert click.annotations and click.annotations.destructive_hint is True
    assert click.annotations.read_only_hint is False and click.annotations.open_world_hint is True
    assert click.input_schema["required"] == ["ref"]
    assert all(t.description and "\n" not in t.description for t in tools.values())


async def shop_task(c: Client, sites: SitesServer, product: str = "Sky Blue Espresso Mug") -> str:
    """Search, open a product, add it to the cart, read the cart total — MCP calls only. Returns the total."""
    home = text_of(await c.call_tool("navigate", {"url": sites.url("/shop/")}))
    assert "Kite Shop" in home, home
    red = ref(home, "link", "Red Enamel Mug")
    typed = await c.call_tool("type", {"ref": ref(home, "input", "Search"), "text": "blue mug"})
    assert not typed.is_error and 'value is now "blue mug"' in text_of(typed)
    results = text_of(await c.call_tool("click", {"ref": ref(home, "button", "Search")}))
    assert "\nPage: Kite Shop — " in results and "q=blue+mug" in results  # the new page comes with it

    stale = error_of(await c.call_tool("click", {"ref": red}))  # a ref of the previous page
    assert stale["error"] == "stale_element" and product in stale["page"]

    page = text_of(await c.call_tool("click", {"ref": ref(results, "link", product)}))
    added = text_of(await c.call_tool("click", {"ref": ref(page, "button", "Add to cart")}))
    assert f"Added 1 × {product}" in added
    cart = text_of(await c.call_tool("click", {"ref": ref(added, "link", "View cart")}))
    assert "/shop/cart" in cart
    snap = text_of(await c.call_tool("snapshot", {}))
    m = re.search(r"Total:?\s*(\$[\d.]+)", snap)
    assert m, snap
    total = m.group(1)
    again = text_of(await c.call_tool("snapshot", {"query": "checkout"}))
    assert "Proceed to checkout" in again and "Add to cart" not in again
    read = text_of(await c.call_tool("read", {"query": "total"}))  # agent.browser.reader behind the tool
    assert read.startswith("Read ") and "passages match" in read and total in read
    return total


async def confirmations(c: Client, answers: Answers, path: str = "/shop/cart") -> None:
    """evaluate is confirm-level: asked through elicitation (a server request in the handshake era, an
    InputRequiredResult round in 2026-07-28); one approved, one declined."""
    ok = await c.call_tool("evaluate", {"code": "return 6 * 7"})
    assert not ok.is_error and "42" in text_of(ok)
    assert (
        ok.structured_content is not None and ok.structured_content["data"]["value"] == 42
    )  # after the question
    no = error_of(await c.call_tool("evaluate", {"code": "return 1"}))
    assert no["error"] == "declined" and "declined" in no["message"]
    assert len(answers.messages) == 2
    assert "Kite asks to run evaluate" in answers.messages[0] and path in answers.messages[0]
    assert "return 6 * 7" in answers.messages[0] and "executeJS" not in answers.messages[0]
    assert "confirmation" in answers.messages[0]  # the reason


async def bad_input(c: Client) -> None:
    blocked = error_of(await c.call_tool("navigate", {"url": "http://blocked.test/"}))
    assert blocked["error"] == "blocked" and "blocked.test" in blocked["message"]
    unknown = error_of(await c.call_tool("teleport", {"to": "mars"}))
    assert unknown["error"] == "unknown_tool" and "snapshot" in unknown["message"]
    wrong = error_of(await c.call_tool("click", {"ref": "the blue one"}))
    assert wrong["error"] == "invalid_arguments" and wrong["fields"] == ["ref"]
    missing = error_of(await c.call_tool("type", {"ref": 1}))
    assert missing["error"] == "invalid_arguments" and "text" in missing["fields"]
    extra = error_of(await c.call_tool("go_back", {"steps": 3}))
    assert extra["error"] == "invalid_arguments"


async def secrets_hidden(c: Client, sites: SitesServer) -> None:
    """A secret is typed by Kite; neither the effects nor the next snapshot show its value."""
    home = text_of(await c.call_tool("navigate", {"url": sites.url("/shop/")}))
    typed = text_of(
        await c.call_tool("type", {"ref": ref(home, "input", "Search"), "text": "<secret>code</secret>"})
    )
    snap = text_of(await c.call_tool("snapshot", {}))
    assert "hunter2" not in typed + snap
    assert "value" in typed  # the field was filled (its value is masked)


def structured_of(tool: types.Tool, result: types.CallToolResult) -> dict[str, Any]:
    """A data tool's ``structuredContent``, checked against the ``outputSchema`` the tool listed and against
    its output model's whole schema (jsonschema), with the text still there for clients that read text."""
    assert not result.is_error and text_of(result), text_of(result)
    data, listed = result.structured_content, tool.output_schema
    assert isinstance(data, dict) and listed is not None, tool.name
    jsonschema.validate(data, listed)
    spec = TOOLS[tool.name]
    assert spec.output is not None
    jsonschema.validate(data, full_schema(spec.output))
    return data


async def structured_results(c: Client, sites: SitesServer) -> None:
    """Actions, snapshot, read and tabs answer data that validates against their schemas; a secret the page
    echoes (the search for it, in the URL and the heading) is redacted in the data as in the text."""
    tools = {t.name: t for t in (await c.list_tools()).tools}
    assert {n for n, t in tools.items() if t.output_schema} == {n for n, s in TOOLS.items() if s.output}
    assert tools["screenshot"].output_schema is None and tools["click"].output_schema is not None
    nav = await c.call_tool("navigate", {"url": sites.url("/shop/")})
    moved = structured_of(tools["navigate"], nav)
    assert moved["ok"] and moved["effects"]["navigated"] and moved["page"] == "snapshot"
    home = text_of(nav)
    snap = structured_of(tools["snapshot"], await c.call_tool("snapshot", {}))
    assert snap["url"] == sites.url("/shop/") and snap["title"] == "Kite Shop"
    search = ref(home, "input", "Search")
    assert {"ref": search, "role": "input", "name": "Search"} in snap["elements"]
    typed = structured_of(
        tools["type"], await c.call_tool("type", {"ref": search, "text": "<secret>code</secret>"})
    )
    assert typed["ok"] and typed["effects"]["value"] is not None
    clicked = await c.call_tool("click", {"ref": ref(home, "button", "Search")})
    found = structured_of(tools["click"], clicked)
    assert found["changed"] and found["effects"]["navigated"]
    read = await c.call_tool("read", {})
    page = structured_of(tools["read"], read)
    tabs = structured_of(tools["tabs"], await c.call_tool("tabs", {}))
    assert [t["active"] for t in tabs["tabs"]] == [True]
    data = json.dumps(
        [typed, found, page, tabs, structured_of(tools["snapshot"], await c.call_tool("snapshot", {}))]
    )
    assert "hunter2" not in data + text_of(clicked) + text_of(read)
    assert "<secret>code</secret>" in found["effects"]["url_after"]  # the page echoed it: redacted
