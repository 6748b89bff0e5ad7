"""Every face judges a click the same way, because every face acts through one BrowserEnv (its gate and its
second look): the agent, an MCP ``click`` (the real MCP SDK client), the ``browser`` module's ``act``,
``chrome_click``, ``playwright_browser``'s click, and ``POST /api/tools/chrome_click`` (real HTTP through the
server's app). ``chrome_type`` with a key delay types through the same gate, and the MCP ``tabs`` tool's new tab
at a URL is judged as the ``navigate`` tool is.

The page is a checkout whose "Pay now" button calls itself "Continue" (``aria-label``): each face has it
confirmed, and with nobody to approve it is declined and never runs. And the page's own ``confirm()`` with a
destructive message is judged by the same gate on every face: asked, and dismissed when nobody approves.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from mcp import Client

from kite_browser.agent.config import BrowserConfig
from kite_browser.agent.mcp.app import kite_mcp
from kite_browser.agent.run.loop import Agent
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
RELABELS = """<!doctype html><meta charset=utf-8><title>Checkout</title>
<h1>Checkout</h1><p>Order total: $500.00, card ending 4242.</p>
<button id=hover onmouseover="this.textContent = 'Pay now'"
  onclick="document.getElementById('log').textContent += 'HOVERPAID '">Continue</button>
<label>Card number <input id=card autocomplete=cc-number></label>
<label>Note <input id=note></label>
<p id=log></p>"""
"""A checkout whose "Continue" turns into "Pay now" when the pointer reaches it (between the snapshot and the
click), with a card field and a plain one."""
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


def test_playwright_browser(harness: Any, pages_server: PagesServer) -> None:
    """A step of playwright_browser is judged through the one wrapper on the page it acts on: the disguised
    "Pay now" is confirmed and, declined, never runs (a ``success: false`` answer); the page's confirm() is
    dismissed by the same gate; a button relabelled "Pay now" as the pointer reaches it is stopped by the
    executor's second look."""
    h = harness(["playwright_browser"])

    def step(confirmer: Any = None, **args: Any) -> dict[str, Any]:
        return h.call("playwright_browser", args, confirmer=confirmer)

    assert step(action="launch")["success"]
    assert step(action="navigate", url=pages_server.add("/checkout/pw", PAGE))["success"]
    asked = Declines()
    refused = step(asked, action="click", selector="#pay")
    assert refused["success"] is False and refused["stderr"].startswith("declined: "), refused
    assert _asked_about_pay(asked.asked), asked.asked
    tidy = step(asked, action="click", selector="#tidy")
    assert tidy["success"], tidy
    assert "PAID" not in Path(tidy["output_files"][-1]).read_text()
    assert step(action="navigate", url=pages_server.add("/checkout/pw-relabel", RELABELS))["success"]
    relabelled = Declines()
    moved = step(relabelled, action="click", selector="#hover")
    assert moved["success"] is False and moved["stderr"].startswith("target_changed: "), moved
    assert [r.element.name for r in relabelled.asked if r.element is not None] == ["Pay now"]
    saved = step(action="screenshot")  # the page saved as its abstract: controls and text
    assert "PAID" not in Path(saved["output_files"][-1]).read_text(), saved


def test_chrome_type_with_a_delay(harness: Any, pages_server: PagesServer) -> None:
    """chrome_type with a key delay is the agent's type through the tab's env: a card number is confirmed
    and, declined, never typed; plain text is typed key by key, the delay between the keys."""
    h = harness(["chrome"])
    tab = h.ok("chrome_launch", {})["tabId"]
    h.ok("chrome_navigate", {"tabId": tab, "url": pages_server.add("/checkout/delay", RELABELS)})
    asked = Declines()
    card = {"tabId": tab, "selector": "#card", "text": "4242 4242 4242 4242", "delay": 20}
    refused = h.call("chrome_type", card, confirmer=asked)
    assert refused.get("error") == "declined", refused
    assert [r.action.get("action") for r in asked.asked] == ["type"], asked.asked
    assert h.ok("chrome_evaluate", {"tabId": tab, "script": "return document.querySelector('#card').value"},
                confirmer=Approves())["result"] == ""  # fmt: skip
    t0 = time.monotonic()
    typed = h.ok("chrome_type", {"tabId": tab, "selector": "#note", "text": "gift", "delay": 60})
    assert typed["value"] == "gift" and time.monotonic() - t0 >= 3 * 0.06, typed


class Approves(Declines):
    async def confirm(self, request: ConfirmRequest) -> ConfirmAnswer:
        self.asked.append(request)
        return ConfirmAnswer(approved=True)


async def test_an_mcp_new_tab_at_a_url(kite_config: Any, pages_server: PagesServer, tmp_path: Path) -> None:
    """The MCP tabs tool's new tab at a URL is judged as a navigation through the same wrapper as a click:
    a blocked domain is refused, a navigation the rules want confirmed is refused with nobody to ask (as a
    click is), each decision recorded, and no tab is opened for either."""
    rules = tmp_path / "rules.yaml"
    rules.write_text(
        "rules:\n  - name: ask-before-opening\n    when: {action: navigate, target_domain: [ask.test]}\n"
        "    level: confirm\n",
        encoding="utf-8",
    )
    config = kite_config(
        modules=[],
        **{"safety.blocked_domains": ["blocked.test"], "safety.rules_file": str(rules),
           "mcp.runs_dir": str(tmp_path / "mcp")},
    )  # fmt: skip
    async with kite_mcp(config) as kite, Client(kite.server) as c:
        text_of(await c.call_tool("navigate", {"url": pages_server.add("/checkout/tabs", PAGE)}))
        blocked = error_of(await c.call_tool("tabs", {"action": "new", "url": "http://blocked.test/"}))
        assert blocked["error"] == "blocked", blocked
        asks = error_of(await c.call_tool("tabs", {"action": "new", "url": "http://ask.test/"}))
        assert asks["error"] == "refused" and "--approve" in asks["message"], asks
        listing = text_of(await c.call_tool("tabs", {"action": "list"}))
        assert listing.count("\n") == 1 and "blocked.test" not in listing, listing  # the first tab alone
    decisions = [
        (r["tool"], r["level"], r["allowed"]) for r in kite.record.read() if r["event"] == "decision"
    ]
    assert decisions == [("tabs", "block", False), ("tabs", "confirm", False)], decisions
