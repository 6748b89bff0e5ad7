"""Bad input, safety and lifecycle of the chrome and browser modules, and ``kite tools``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from kite_browser.agent.cli import main as kite
from kite_browser.safety.confirm import ConfirmAnswer, ConfirmRequest
from tests.fixtures.procs import gone, processes
from tests.modules.conftest import ToolboxHarness

# one chrome module and its browser (a module fixture) for the file, on one xdist worker
pytestmark = pytest.mark.xdist_group("modules_io")


class Recorder:
    """A confirmer that approves or refuses and remembers what it was asked."""

    def __init__(self, approve: bool) -> None:
        self.approve = approve
        self.asked: list[ConfirmRequest] = []

    async def confirm(self, request: ConfirmRequest) -> ConfirmAnswer:
        self.asked.append(request)
        return ConfirmAnswer(approved=self.approve, reason="" if self.approve else "test says no")

    async def notify(self, request: ConfirmRequest) -> None:
        return None


@pytest.fixture(scope="module")
def chrome(harness_factory: Any) -> tuple[ToolboxHarness, str, str]:
    h = harness_factory(["chrome"], **{"safety.blocked_domains": ["blocked.test"]})
    launched = h.ok("chrome_launch", {})
    return h, launched["browserId"], launched["tabId"]


def _err(result: dict[str, Any], kind: str) -> dict[str, Any]:
    assert result.get("error") == kind, result
    assert isinstance(result.get("message"), str) and result["message"]
    return result


def test_chrome_bad_input_is_typed_and_the_module_keeps_working(chrome: Any, sites: Any) -> None:
    h, browser_id, tab = chrome
    _err(h.call("chrome_fly", {}), "unknown_tool")
    bad = _err(h.call("chrome_navigate", {"tabId": tab, "url": 5, "timeoutMs": "soon"}), "invalid_arguments")
    assert {p["field"] for p in bad["problems"]} == {"url", "timeoutMs"}
    missing = _err(h.call("chrome_click", {"tabId": tab}), "invalid_arguments")
    assert missing["problems"][0]["field"] == "selector"
    _err(h.call("chrome_get_url", ["not", "an", "object"]), "invalid_arguments")
    assert _err(h.call("chrome_list_tabs", {"browserId": "nope"}), "browser_not_found")["browserId"] == "nope"
    assert _err(h.call("chrome_get_text", {"tabId": "tab-nope"}), "tab_not_found")["tabId"] == "tab-nope"
    for url in ("javascript:alert(1)", "file:///etc/passwd", "ftp://example.org/"):
        _err(h.call("chrome_navigate", {"tabId": tab, "url": url}), "invalid_url")
    _err(h.call("chrome_navigate", {"tabId": tab, "url": "http://shop.blocked.test/"}), "blocked")
    h.ok("chrome_navigate", {"tabId": tab, "url": sites.url("/shop/")})
    miss = _err(
        h.call("chrome_click", {"tabId": tab, "selector": "#nowhere", "timeoutMs": 200}), "element_not_found"
    )
    assert miss["selector"] == "#nowhere"
    _err(h.call("chrome_get_text", {"tabId": tab, "selector": "a[["}), "invalid_selector")
    _err(h.call("chrome_wait_for", {"tabId": tab, "selector": "#nowhere", "timeoutMs": 200}), "wait_timeout")
    t0 = time.monotonic()
    hang = _err(
        h.call("chrome_navigate", {"tabId": tab, "url": sites.url("/test/hang.html"), "timeoutMs": 1500}),
        "navigation_timeout",
    )
    assert hang["timeoutMs"] == 1500 and time.monotonic() - t0 < 10
    assert h.ok("chrome_get_text", {"tabId": tab, "selector": "#title"})["text"]  # the tab still works
    h.ok("chrome_navigate", {"tabId": tab, "url": sites.url("/shop/")})
    ok = Recorder(approve=True)
    big = h.call("chrome_evaluate", {"tabId": tab, "script": "'x'.repeat(10 * 1024 * 1024)"}, confirmer=ok)
    _err(big, "result_too_large")
    t0 = time.monotonic()
    _err(
        h.call("chrome_evaluate", {"tabId": tab, "script": "while (true) {}"}, confirmer=ok),
        "evaluate_timeout",
    )
    assert time.monotonic() - t0 < 1.5 + 5
    _err(
        h.call("chrome_evaluate", {"tabId": tab, "script": "throw new Error('boom')"}, confirmer=ok),
        "evaluate_error",
    )
    assert h.ok("chrome_evaluate", {"tabId": tab, "script": "return 6 * 7"}, confirmer=ok)["result"] == 42
    closed = h.ok("chrome_launch", {})
    h.ok("chrome_close", {"browserId": closed["browserId"]})
    assert (
        "was closed"
        in _err(h.call("chrome_new_tab", {"browserId": closed["browserId"]}), "browser_not_found")["message"]
    )
    _err(h.call("chrome_get_url", {"tabId": closed["tabId"]}), "tab_not_found")
    assert h.ok("chrome_list_tabs", {"browserId": browser_id})["tabs"]


def test_chrome_safety_policy(chrome: Any, sites: Any) -> None:
    h, _, tab = chrome
    refused = _err(
        h.call("chrome_evaluate", {"tabId": tab, "script": "1"}), "declined"
    )  # no approval configured
    assert refused["level"] == "confirm"
    yes = Recorder(approve=True)
    assert h.ok("chrome_evaluate", {"tabId": tab, "script": "1 + 1"}, confirmer=yes)["result"] == 2
    assert yes.asked[-1].action["tool"] == "chrome_evaluate" and yes.asked[-1].action["action"] == "executeJS"
    # a submit button on a sensitive page (checkout) goes to the confirmer with the element the page shows
    h.ok("chrome_navigate", {"tabId": tab, "url": sites.url("/shop/product/sky-blue-espresso-mug")})
    h.ok("chrome_click", {"tabId": tab, "selector": "#add-to-cart"})
    h.ok("chrome_wait_for", {"tabId": tab, "selector": "#added-message"})
    h.ok("chrome_navigate", {"tabId": tab, "url": sites.url("/shop/checkout")})
    no = Recorder(approve=False)
    _err(h.call("chrome_click", {"tabId": tab, "selector": "#place-order"}, confirmer=no), "declined")
    assert no.asked and no.asked[0].element is not None and "order" in no.asked[0].element.name.lower()
    # a literal into a card field needs confirmation too; a plain name field does not
    _err(
        h.call(
            "chrome_fill",
            {"tabId": tab, "selector": "#card-number", "value": "4242 4242 4242 4242"},
            confirmer=no,
        ),
        "declined",
    )
    assert (
        h.ok("chrome_fill", {"tabId": tab, "selector": "#name", "value": "Ada"}, confirmer=no)["value"]
        == "Ada"
    )


def test_several_browsers_and_clean_shutdown(harness_factory: Any) -> None:
    marker = f"--kite-test-marker={uuid.uuid4().hex}"
    h: ToolboxHarness = harness_factory(["chrome"])
    first = h.ok("chrome_launch", {"args": [marker]})
    second = h.ok("chrome_launch", {"args": [marker]})
    assert first["browserId"] != second["browserId"] and first["tabId"] != second["tabId"]
    extra = h.ok("chrome_new_tab", {"browserId": second["browserId"]})
    assert {t["tabId"] for t in h.ok("chrome_list_tabs", {"browserId": second["browserId"]})["tabs"]} == {
        second["tabId"],
        extra["tabId"],
    }
    assert processes(marker)
    h.run(h.toolbox.close())
    assert gone(marker), "Chromium left behind after shutdown"
    assert all(s.status == "shutdown" for s in h.toolbox.states())


SIGTERM_SCRIPT = """
import asyncio, sys
from kite_browser.agent.config import load_config
from kite_browser.agent.modules import Toolbox

async def main():
    cfg = load_config(env={}, overrides={"modules": ["chrome"], "browser.chromium_path": sys.argv[2]})
    async with Toolbox(cfg) as tb:
        out = await tb.call("chrome_launch", {"args": [sys.argv[1]]})
        print("ready" if "browserId" in out else out, flush=True)
        await asyncio.sleep(120)

asyncio.run(main())
"""


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "ctrl-c"])
def test_signals_leave_no_chromium(chromium_path: str | None, tmp_path: Path, sig: signal.Signals) -> None:
    marker = f"--kite-test-marker={uuid.uuid4().hex}"
    env = {**os.environ, "KITE_HOME": str(tmp_path)}
    proc = subprocess.Popen(
        [sys.executable, "-c", SIGTERM_SCRIPT, marker, chromium_path or ""],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        assert processes(marker)
        proc.send_signal(sig)
        assert proc.wait(timeout=30) in (-sig, 1, 130)
        assert gone(marker)
    finally:
        if proc.poll() is None:
            proc.kill()


def test_browser_module_bad_input_and_safety(harness_factory: Any, sites: Any, never_loads: str) -> None:
    # building a 10 MB string took over the suite's 1.5 s script cap at load 20: nothing here tests that cap
    overrides = {"browser.navigation_timeout_ms": 1500, "browser.js_timeout_ms": 10_000}
    h: ToolboxHarness = harness_factory(["browser"], **overrides)
    _err(h.call("browsr", {"action": "status"}), "unknown_tool")
    _err(h.call("browser", {"action": "fly"}), "invalid_arguments")
    _err(h.call("browser", {"action": "navigate"}), "invalid_arguments")
    _err(h.call("browser", {"action": "navigate", "target_url": 42}), "invalid_arguments")
    _err(h.call("browser", {"action": "act", "request": {"kind": "click"}}), "invalid_arguments")
    _err(
        h.call("browser", {"action": "act", "request": {"kind": "click", "target_id": "first"}}),
        "invalid_arguments",
    )
    for url in ("javascript:alert(1)", "file:///etc/passwd"):
        _err(h.call("browser", {"action": "navigate", "target_url": url}), "invalid_url")
    assert h.ok("browser", {"action": "status"})["running"] is False  # nothing started by refused calls
    page = h.ok("browser", {"action": "navigate", "target_url": sites.url("/test/counter.html")})
    assert page["tokens"] > 0 and "[" in page["snapshot"]
    stale = _err(
        h.call("browser", {"action": "act", "request": {"kind": "click", "target_id": "999"}}),
        "stale_element",
    )
    assert stale["target_id"] == "999" and "Increment" in stale["snapshot"]
    t0 = time.monotonic()
    hang = h.call("browser", {"action": "navigate", "target_url": never_loads})
    assert hang.get("error") and hang["message"] and time.monotonic() - t0 < 1.5 + 10, hang
    _err(h.call("browser", {"action": "act", "request": {"kind": "evaluate", "text": "1"}}), "declined")
    yes = Recorder(approve=True)
    out = h.ok(
        "browser", {"action": "act", "request": {"kind": "evaluate", "text": "return 2 + 3"}}, confirmer=yes
    )
    assert out["data"]["value"] == 5
    big = h.ok(
        "browser",
        {"action": "act", "request": {"kind": "evaluate", "text": "return 'x'.repeat(10 * 1024 * 1024)"}},
        confirmer=yes,
    )
    assert (
        big["data"]["truncated"] is True and len(big["data"]["value"]) <= 20_000
    )  # the agent's executeJS cap
    h.ok("browser", {"action": "stop"})
    assert h.ok("browser", {"action": "status"})["running"] is False
    # after stop, an id from the old page is stale on the new sandbox, which the call starts itself
    again = _err(
        h.call("browser", {"action": "act", "request": {"kind": "click", "target_id": "1"}}), "stale_element"
    )
    assert again["snapshot"] is not None and h.ok("browser", {"action": "status"})["running"] is True


def test_kite_tools_cli(capsys: pytest.CaptureFixture[str]) -> None:
    assert kite(["tools", "list", "--modules", "chrome,browser"]) == 0
    out = capsys.readouterr().out
    assert "chrome [initialized] 15 tool(s)" in out and "chrome_wait_for" in out
    # a module name typed on the command line that does not exist is a usage error (one from a config file
    # is recorded as module_not_found and the others load: tests/agent/test_cli_usage_gaps.py)
    assert kite(["tools", "list", "--modules", "chrome,browser,nowhere"]) == 2
    err = capsys.readouterr().err
    assert "nowhere" in err and len(err.strip().splitlines()) == 1
    assert kite(["tools", "call", "chrome_get_url", '{"tabId": "t-1"}', "--modules", "chrome"]) == 1
    assert '"error": "tab_not_found"' in capsys.readouterr().out
    assert kite(["tools", "call", "chrome_get_url", "{oops", "--modules", "chrome"]) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith("kite: error: the arguments are not valid JSON") and len(err.strip().splitlines()) == 1
    )


def test_chrome_http_router_and_web_component(chrome: Any) -> None:
    """The seed's chrome endpoints through a real HTTP client (ASGI), and the panel definition."""
    import httpx
    from fastapi import FastAPI

    h, browser_id, tab = chrome
    app = FastAPI()
    for name, router in h.toolbox.registry.http_routers().items():
        app.include_router(router, prefix=f"/api/modules/{name}")

    async def exercise() -> dict[str, Any]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://kite") as client:
            out: dict[str, Any] = {}
            out["list"] = (await client.get("/api/modules/chrome/browsers")).json()
            out["one"] = (await client.get(f"/api/modules/chrome/browsers/{browser_id}")).json()
            extra = h.toolbox.registry.module("chrome").manager  # type: ignore[union-attr]
            new_tab = await extra.new_tab(browser_id)
            out["tabs"] = (await client.get(f"/api/modules/chrome/browsers/{browser_id}/tabs")).json()
            out["shot"] = (await client.get(f"/api/modules/chrome/tabs/{tab}/screenshot")).json()
            out["close_tab"] = (await client.post(f"/api/modules/chrome/tabs/{new_tab.id}/close")).json()
            missing = await client.get("/api/modules/chrome/browsers/nope/tabs")
            out["missing"] = (missing.status_code, missing.json())
            return out

    out = h.run(exercise())
    assert browser_id in {b["browserId"] for b in out["list"]["browsers"]}
    assert out["one"]["browserId"] == browser_id and out["one"]["tabs"]
    assert len(out["tabs"]["tabs"]) >= 2 and out["shot"]["format"] == "png" and out["shot"]["data"]
    assert out["close_tab"]["closed"] is True
    assert out["missing"][0] == 404 and out["missing"][1]["error"] == "browser_not_found"
    (panel,) = [c for c in h.toolbox.registry.web_components() if c.module_name == "chrome"]
    assert "ChromePanel" in panel.panel_js and "chrome-module-panel" in panel.panel_html and panel.panel_css


def test_chrome_fill_replaces_in_every_kind_of_field(chrome: Any, pages_server: Any) -> None:
    """chrome_fill: text-like inputs, contenteditable and typeless inputs (date) are replaced; an empty value
    clears; a disabled field, a button or a bad date is element_not_interactable and nothing changes."""
    h, _, tab = chrome
    page = """<input id="num" type="number" aria-label="N" value="7"><input id="mail" type="email" value="a@b.c">
    <input id="day" type="date" aria-label="Day"><input id="off" aria-label="Off" value="kept" disabled>
    <button id="btn">Button</button><div id="ed" contenteditable="true">old text</div>"""
    h.ok("chrome_navigate", {"tabId": tab, "url": pages_server.add("/fill.html", page)})

    def fill(sel: str, value: str) -> dict[str, Any]:
        return h.call("chrome_fill", {"tabId": tab, "selector": sel, "value": value})

    assert fill("#num", "42")["value"] == "42" and fill("#num", "")["value"] == ""
    assert fill("#mail", "ada@example.org")["value"] == "ada@example.org"
    assert fill("#day", "2024-02-29")["value"] == "2024-02-29"
    assert fill("#ed", "new words")["value"] == "new words"
    for sel, value in (("#day", "not a date"), ("#off", "x"), ("#btn", "x")):
        _err(fill(sel, value), "element_not_interactable")
    assert h.ok("chrome_evaluate", {"tabId": tab, "script": "return [day.value, off.value]"},
                confirmer=Recorder(approve=True))["result"] == ["2024-02-29", "kept"]  # fmt: skip
