"""One toolset interface (agent/base/toolset.py) for the three sources of tools, and safety as one wrapper around it
(safety/toolset.py): the page actions offered to tool callers, the tool modules and the MCP server's tools all
list their tools as ``ToolDef``s and call one by name; ``GatedToolset`` asks the gate before a call runs.

The page is a checkout whose "Pay now" button calls itself "Continue" (``aria-label``): through the wrapper a
click on it is confirmed, and declined it never runs. A "Continue" button that turns into "Pay now" between
the snapshot and the click is judged again at the click, through the same wrapper.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from kite_browser.agent.base.levels import LevelName
from kite_browser.agent.base.toolset import READS, JsonObject, ToolDef, Toolset
from kite_browser.agent.browser.env import Acted, BrowserEnv, EnvSafety
from kite_browser.agent.browser.session import ContextSession
from kite_browser.agent.mcp.app import kite_mcp
from kite_browser.agent.modules.action_tools import ActionToolset
from kite_browser.agent.modules.functions import USER_MODULE, FunctionModule, tool
from kite_browser.agent.modules.registry import ModuleRegistry
from kite_browser.safety.confirm import ConfirmAnswer, ConfirmRequest, Gate
from kite_browser.safety.toolset import CallPlan, CallRefusedError, GatedToolset, Verdict
from tests.fixtures.browser import PagesServer

PAGE = """<!doctype html><meta charset=utf-8><title>Checkout</title>
<h1>Checkout</h1><p>Order total: $500.00, card ending 4242.</p>
<button id=pay aria-label="Continue" onclick="document.getElementById('log').textContent += 'PAID '">Pay now</button>
<button id=hover onmouseover="this.textContent = 'Pay now'"
  onclick="document.getElementById('log').textContent += 'HOVERPAID '">Continue</button>
<button id=plain onclick="document.getElementById('log').textContent += 'SHOWN '">Show summary</button>
<p id=log></p>"""


class Declines:
    """A person who is asked and says no; remembers what was asked."""

    def __init__(self) -> None:
        self.asked: list[ConfirmRequest] = []

    async def confirm(self, request: ConfirmRequest) -> ConfirmAnswer:
        self.asked.append(request)
        return ConfirmAnswer(approved=False, reason="test says no")

    async def notify(self, request: ConfirmRequest) -> None:
        return None


@tool(read_only=True)
def word_count(text: str) -> int:
    """Count the words of a text."""
    return len(text.split())


def listed(toolset: Toolset[object]) -> dict[str, Any]:
    """What any toolset lists, through the one interface: tool name -> its definition."""
    return {d.name: d for d in toolset.definitions()}


@pytest.fixture
def env(kite_config: Any, ctx_session: ContextSession) -> Iterator[BrowserEnv]:
    config = kite_config()
    yield BrowserEnv(config, ctx_session, EnvSafety.from_config(config))


async def _on_checkout(env: BrowserEnv, pages_server: PagesServer) -> dict[str, int]:
    """The checkout loaded and observed: each button's index by its id."""
    await env.ctx.page.goto(pages_server.add("/checkout/toolset", PAGE))
    obs = await env.observe()
    return {e.attrs["id"]: e.index for e in obs.elements if e.tag == "button"}


async def test_the_three_sources_list_through_one_interface(kite_config: Any, env: BrowserEnv) -> None:
    config = kite_config()
    actions = listed(GatedToolset(ActionToolset(env), env.gate))  # page actions are only called gated
    assert {"click", "type", "navigate"} <= set(actions)
    assert actions["click"].parameters["required"] == ["ref"] and actions["click"].hints.destructive

    registry = ModuleRegistry(config, given={USER_MODULE: FunctionModule([word_count])}, names=[USER_MODULE])
    await registry.load()
    try:
        modules = listed(registry)
        assert modules["word_count"].description == "Count the words of a text."
        assert modules["word_count"].parameters["required"] == ["text"]
        assert await registry.call("word_count", {"text": "one two three"}) == {"result": 3}
    finally:
        await registry.shutdown()

    registry = ModuleRegistry(config, given={USER_MODULE: FunctionModule([word_count])}, names=[USER_MODULE])
    async with kite_mcp(config, registry=registry) as server:
        mcp = listed(server)
        assert set(actions) <= set(mcp) and {"snapshot", "tabs", "word_count"} <= set(mcp)
        assert mcp["click"].parameters == actions["click"].parameters  # one definition, derived once
        assert mcp["snapshot"].hints == READS
        answer = await server.call("word_count", {"text": "one two"})  # through the same interface
        assert [getattr(block, "text", "") for block in answer.content] == ['{"result": 2}']


async def test_the_wrapper_confirms_a_disguised_pay_now_and_does_not_run_it(
    env: BrowserEnv, pages_server: PagesServer
) -> None:
    buttons = await _on_checkout(env, pages_server)
    person = Declines()
    tools = GatedToolset(ActionToolset(env), env.gate, person)
    assert set(listed(tools)) >= {"click", "type"}
    with pytest.raises(CallRefusedError) as refused:
        await tools.call("click", {"ref": buttons["pay"]})
    assert refused.value.refused == "declined"
    assert [r.action.get("action") for r in person.asked] == ["click"]
    assert person.asked[0].decision.level.value == "confirm"
    assert await env.ctx.page.inner_text("#log") == ""  # nothing was paid


async def test_a_button_relabelled_before_the_click_is_judged_again_through_the_wrapper(
    env: BrowserEnv, pages_server: PagesServer
) -> None:
    buttons = await _on_checkout(env, pages_server)
    person = Declines()
    tools = GatedToolset(ActionToolset(env), env.gate, person)
    acted = await tools.call("click", {"ref": buttons["hover"]})
    assert isinstance(acted, Acted) and acted.result.error is not None
    assert acted.result.error.error == "target_changed", acted.result
    assert [r.element.name for r in person.asked if r.element is not None] == ["Pay now"]
    shown = await tools.call("click", {"ref": buttons["plain"]})
    assert shown.result.ok
    assert re.fullmatch(r"\s*SHOWN\s*", await env.ctx.page.inner_text("#log"))


class Levels:
    """A toolset of calls that are no browser action, each at the level its name says; remembers what ran."""

    def __init__(self) -> None:
        self.ran: list[str] = []

    LEVELS: dict[str, LevelName] = {
        "auto": "auto",
        "notify": "notify",
        "confirm": "confirm",
        "block": "block",
    }

    def definitions(self) -> list[ToolDef]:
        return [ToolDef(name) for name in self.LEVELS]

    async def plan(self, name: str, args: JsonObject, /) -> CallPlan:
        return CallPlan(level=self.LEVELS[name])

    async def run(self, name: str, args: JsonObject, verdict: Verdict, /) -> str:
        self.ran.append(name)
        return name


class Approves(Declines):
    async def confirm(self, request: ConfirmRequest) -> ConfirmAnswer:
        self.asked.append(request)
        return ConfirmAnswer(approved=True)


async def test_the_wrapper_runs_only_what_the_gate_allows(kite_config: Any) -> None:
    gate = Gate.from_config(kite_config().safety)
    inner = Levels()
    declines = GatedToolset(inner, gate, Declines())
    assert await declines.call("auto", {}) == "auto" and await declines.call("notify", {}) == "notify"
    for level, refused in (("confirm", "declined"), ("block", "blocked")):
        with pytest.raises(CallRefusedError) as caught:
            await declines.call(level, {"x": 1})
        assert caught.value.refused == refused
    assert inner.ran == ["auto", "notify"]  # the refused calls never ran
    person = Approves()
    assert await GatedToolset(inner, gate, person).call("confirm", {"x": 1}) == "confirm"
    assert [r.action for r in person.asked] == [{"action": "confirm", "tool": "confirm", "args": {"x": 1}}]
    await gate.flush()
