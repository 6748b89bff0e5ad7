"""The chrome tools on a tab whose script never yields: each call runs under the tab's hang watchdog (the rule
the agent's steps run under), so it answers ``page_unresponsive`` once ``browser.hang_timeout_ms`` has passed
with the renderer silent, and the stuck tab is closed, instead of holding the call until
``module_settings.call_timeout_s`` (``tool_timeout``). ``chrome_evaluate`` still stops a runaway script of its
own and keeps the tab."""

from __future__ import annotations

from typing import Any

import pytest

from tests.fixtures.browser import PagesServer
from tests.modules.conftest import ToolboxHarness

# its own browser, and each stuck tab costs hang_timeout_ms and a probe; both tests on one xdist worker, one browser
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("chrome_stuck_tab")]

SPIN = "setTimeout(() => { while (true) {} }, 0); return 'scheduled'"
"""Starts spinning right after this evaluate has answered."""
PAGE = "<!doctype html><title>Stuck</title><button id='go'>Go</button><p id='text'>some text</p>"


@pytest.fixture(scope="module")
def chrome(harness_factory: Any) -> tuple[ToolboxHarness, str]:
    h: ToolboxHarness = harness_factory(
        ["chrome"],
        **{
            "safety.approve": ["executeJS"],
            "browser.hang_timeout_ms": 1000,
            "module_settings.call_timeout_s": 60,  # the old answer, tool_timeout, would come after this
        },
    )
    return h, h.ok("chrome_launch", {})["browserId"]


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("chrome_click", {"selector": "#go"}),
        ("chrome_get_text", {"selector": "#text"}),
        ("chrome_fill", {"selector": "#go", "value": "x"}),
        ("chrome_screenshot", {}),
    ],
)
def test_a_call_on_a_stuck_tab_answers_page_unresponsive(
    chrome: tuple[ToolboxHarness, str], pages_server: PagesServer, tool: str, args: dict[str, Any]
) -> None:
    h, browser_id = chrome
    url = pages_server.add("/stuck.html", PAGE)
    tab = h.ok("chrome_new_tab", {"browserId": browser_id, "url": url})["tabId"]
    assert h.ok("chrome_evaluate", {"tabId": tab, "script": SPIN})["result"] == "scheduled"
    out = h.call(tool, {"tabId": tab, **args})
    assert out.get("error") == "page_unresponsive", out
    assert out["tool"] == tool and "stopped responding" in out["message"]
    assert h.call("chrome_get_url", {"tabId": tab})["error"] == "tab_not_found"  # the stuck tab is gone
    listed = h.ok("chrome_list_tabs", {"browserId": browser_id})["tabs"]
    assert tab not in {t["tabId"] for t in listed}


def test_evaluate_stops_its_own_runaway_script_and_keeps_the_tab(
    chrome: tuple[ToolboxHarness, str], pages_server: PagesServer
) -> None:
    h, browser_id = chrome
    url = pages_server.add("/runaway.html", PAGE)
    tab = h.ok("chrome_new_tab", {"browserId": browser_id, "url": url})["tabId"]
    out = h.call("chrome_evaluate", {"tabId": tab, "script": "while (true) {}"})
    assert out.get("error") == "evaluate_timeout", out
    assert h.ok("chrome_get_text", {"tabId": tab, "selector": "#text"})["text"] == "some text"
