"""Every face judges a click the same way, because every face acts through one BrowserEnv (its gate and its
second look): the agent, an MCP ``click`` (the real MCP SDK client), the ``browser`` module's ``act``,
``chrome_click``, and ``POST /api/tools/chrome_click`` (real HTTP through the server's app).

The page is a checkout whose "Pay now" button calls itself "Continue" (``aria-label``): each face has it
confirmed, and with nobody to approve it is declined and never runs. And the page's own ``confirm()`` with a
destructive message is judged by the same gate on every face: asked, and dismissed when nobody approves.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from mcp import Client

from kite_browser.agent.config import BrowserConfig
from kite_browser.agent.loop import Agent
from kite_browser.agent.mcp.app import kite_mcp
from kite_browser.agent.server import ServerState, create_app
from kite_browser.safety.confirm import BatchConfirmer, ConfirmAnswer, ConfirmRequest
from tests.fixtures.browser import PagesServer
from tests.mcp.conftest import error_of, text_of
from tests.modules.conftest import ToolboxHarness, module_config

PAGE = """<!doctype html><meta charset=utf-8><title>Checkout</title>
<h1>Checkout</h1><p>Order total: $500.00, card ending 4242.</p>
<button id=pay aria-label="Continue" onclick="document.getElementById('log').textContent += 'PAID '">Pay now</button>
<button id=tidy onclick="if (confirm('Are you sure you want to delete this item?'))
  document.getElementById('log').textContent += 'DELETED '">Tidy up</button>
<p id=log></p>"""
DIALOG = {"action": "dialog", "type": "confirm", "message": "Are you sure you want to delete this item?"}


class Declines:
    """A person who is asked and says no; remembers what was asked."""

    def __init__(self) -> None:
        self.asked: list[ConfirmRequest] = []

    async def confirm(self, request: ConfirmRequest) -> ConfirmAnswer:
        self.asked.append(request)
        return ConfirmAnswer(approved=False, reason="test says no")

    async def notify(self, request: ConfirmRequest) -> None:
        return None


def _asked_about_pay(asked: list[ConfirmRequest]) -> bool:
    return any(r.action.get("action") == "click" and r.decision.level.value == "confirm" for r in asked)


def _dialogs(asked: list[ConfirmRequest]) -> list[dict[str, Any]]:
    return [
        {k: r.action.get(k) for k in ("action", "type", "message")}
        for r in asked
        if r.action.get("action") == "dialog"
    ]


async def test_the_agent(
    kite_config: Any, ctx_session: Any, pages_server: PagesServer, scripted_model: Any
) -> None:
    url = pages_server.add("/checkout/pay", PAGE)
    scripted_model.script(
        [
            {"name": "click", "arguments": {"selector": "#pay"}},
            {"name": "click", "arguments": {"selector": "#tidy"}},
            {"name": "done", "arguments": {"success": True, "answer": "ok"}},
        ]
    )
    confirmer = BatchConfirmer([])  # nobody approves
    result = await Agent(kite_config(), context=ctx_session, confirmer=confirmer).run("pay", start_url=url)
    assert result.stop_reason == "done", result
    asked = [req for req, _ in confirmer.asked]
    assert _asked_about_pay(asked) and _dialogs(asked) == [DIALOG]
    assert await ctx_session.page.inner_text("#log") == ""  # neither the payment nor the deletion ran


def _ref(snapshot: str, *names: str) -> int:
    m = re.search(rf"^\[(\d+)\][^\n]*(?:{'|'.join(map(re.escape, names))})", snapshot, re.M)
    assert m, snapshot
    return int(m.group(1))


async def test_an_mcp_click(kite_config: Any, pages_server: PagesServer) -> None:
    url = pages_server.add("/checkout/mcp", PAGE)
    async with kite_mcp(kite_config(modules=[])) as kite, Client(kite.server) as c:  # no elicitation: nobody
        page = text_of(await c.call_tool("navigate", {"url": url}))
        refused = error_of(await c.call_tool("click", {"ref": _ref(page, "Continue", "Pay now")}))
        assert refused["error"] == "refused" and "--approve" in refused["message"], refused
        tidy = text_of(await c.call_tool("click", {"ref": _ref(page, "Tidy up")}))
        assert "confirm dialog" in tidy and "dismissed" in tidy, tidy
        text = text_of(await c.call_tool("read", {}))
        assert "PAID" not in text and "DELETED" not in text, text


@pytest.fixture
def harness(browser_config: BrowserConfig, tmp_path: Path) -> Any:
    made: list[ToolboxHarness] = []

    def make(modules: list[str]) -> ToolboxHarness:
        made.append(ToolboxHarness(module_config(browser_config, tmp_path), modules))
        return made[-1]

    yield make
    for h in made:
        h.close()


def test_the_browser_module_act(harness: Any, pages_server: PagesServer) -> None:
    h = harness(["browser"])
    page = h.ok("browser", {"action": "navigate", "target_url": pages_server.add("/checkout/b", PAGE)})
    snap = page["snapshot"]
    asked = Declines()
    act = {"kind": "click", "target_id": str(_ref(snap, "Continue", "Pay now"))}
    refused = h.call("browser", {"action": "act", "request": act}, confirmer=asked)
    assert refused.get("error") == "declined" and _asked_about_pay(asked.asked), refused
    tidy = {"kind": "click", "target_id": str(_ref(snap, "Tidy up"))}
    clicked = h.ok("browser", {"action": "act", "request": tidy}, confirmer=asked)
    # the dialog came while the click ran: judged by the module's gate (its default confirmer: nobody approves)
    assert clicked["effects"]["dialog"]["handled"] == "dismissed", clicked
    shown = h.ok("browser", {"action": "snapshot"})["snapshot"]
    assert "PAID" not in shown and "DELETED" not in shown, shown


def test_chrome_click(harness: Any, pages_server: PagesServer) -> None:
    h = harness(["chrome"])
    tab = h.ok("chrome_launch", {})["tabId"]
    h.ok("chrome_navigate", {"tabId": tab, "url": pages_server.add("/checkout/c", PAGE)})
    asked = Declines()
    refused = h.call("chrome_click", {"tabId": tab, "selector": "#pay"}, confirmer=asked)
    assert refused.get("error") == "declined" and _asked_about_pay(asked.asked), refused
    h.ok("chrome_click", {"tabId": tab, "selector": "#tidy"}, confirmer=asked)
    assert h.ok("chrome_get_text", {"tabId": tab, "selector": "#log"})["text"] == ""


def test_post_api_tools(browser_config: BrowserConfig, tmp_path: Path, pages_server: PagesServer) -> None:
    config = module_config(
        browser_config, tmp_path, modules=["chrome"], **{"run.runs_dir": str(tmp_path / "r")}
    )
    static = tmp_path / "static"
    static.mkdir()
    (static / "index.html").write_text("<!doctype html><title>Kite</title>", encoding="utf-8")
    state = ServerState(config, token="t" * 24)
    with TestClient(
        create_app(state, static_dir=static), headers={"Authorization": "Bearer " + "t" * 24}
    ) as api:
        tab = api.post("/api/tools/chrome_launch", json={}).json()["tabId"]
        url = pages_server.add("/checkout/http", PAGE)
        assert api.post("/api/tools/chrome_navigate", json={"tabId": tab, "url": url}).status_code == 200
        refused = api.post("/api/tools/chrome_click", json={"tabId": tab, "selector": "#pay"})
        assert refused.status_code == 403 and refused.json()["error"] == "declined", refused.json()
        assert (
            api.post("/api/tools/chrome_click", json={"tabId": tab, "selector": "#tidy"}).status_code == 200
        )
        text = api.post("/api/tools/chrome_get_text", json={"tabId": tab, "selector": "#log"}).json()
        assert text["text"] == "", text
