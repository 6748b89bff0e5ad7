"""Properties of the chrome module (seed 000, properties 6-12) against one real headless Chromium."""

from __future__ import annotations

import base64
import html
import json
import re
import string
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fixtures.browser import PagesServer
from tests.modules.conftest import ToolboxHarness

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900), pytest.mark.xdist_group("chrome_props")]
"""100 examples each. Quiet, the slowest test takes ~20 s; at load 30 on 2 cores, ~60 s. (The typing and click
properties took 200-300 s while test_tab_lifecycle's tabs stood in front of the one acted on: Chromium drew it a
frame a second; ContextSession.to_front, tests/browser/test_session_tabs.py.) A stuck call cannot eat this
margin: every call on a tab runs under its hang watchdog (test_chrome_stuck_tab.py)."""

SETTINGS = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
SNAKE = re.compile(r"^[a-z][a-z0-9_]*$")
TYPED = string.ascii_letters + string.digits + " .,-_!?"

PLAYGROUND = """<!doctype html><title>Playground</title>
<input id="field" aria-label="Field"><textarea id="area" aria-label="Area"></textarea>
<button id="inc" onclick="document.getElementById('count').textContent = +document.getElementById('count').textContent + 1">Add one</button>
<span id="count">0</span><p class="note" id="note-1">first</p><p class="note" id="note-2">second</p>
<button id="far" style="margin-top: 3000px" onclick="document.getElementById('count').textContent = +document.getElementById('count').textContent + 1">Far below</button>"""


@pytest.fixture(scope="module")
def chrome(harness_factory: Any, pages_server: PagesServer) -> Any:
    h: ToolboxHarness = harness_factory(["chrome"], **{"safety.approve": ["executeJS"]})
    launched = h.ok("chrome_launch", {})
    pages_server.add("/play.html", PLAYGROUND)
    return h, launched["browserId"], launched["tabId"]


def _error(result: dict[str, Any], kind: str) -> dict[str, Any]:
    assert result.get("error") == kind, result
    assert isinstance(result["message"], str) and result["message"]
    return result


OPEN_TABS: list[str] = []
"""Tabs opened by test_tab_lifecycle, kept across examples (opening a tab is the expensive part)."""


@SETTINGS
@given(op=st.sampled_from(["new", "close", "list"]), which=st.integers(0, 3))
def test_tab_lifecycle(chrome: Any, op: str, which: int) -> None:
    """Property 7: new tabs get unique ids, belong to their browser, are listed, and are gone once closed."""
    h, browser_id, first_tab = chrome
    if op == "new" and len(OPEN_TABS) < 4:
        tab = h.ok("chrome_new_tab", {"browserId": browser_id})
        assert tab["browserId"] == browser_id and tab["tabId"] not in [*OPEN_TABS, first_tab]
        OPEN_TABS.append(tab["tabId"])
    elif op == "close" and OPEN_TABS:
        gone = OPEN_TABS.pop(which % len(OPEN_TABS))
        h.ok("chrome_close_tab", {"tabId": gone})
        _error(h.call("chrome_get_url", {"tabId": gone}), "tab_not_found")
    listed = {t["tabId"] for t in h.ok("chrome_list_tabs", {"browserId": browser_id})["tabs"]}
    assert {*OPEN_TABS, first_tab} == listed


@SETTINGS
@given(
    path=st.text(string.ascii_lowercase + string.digits + "-", min_size=1, max_size=10),
    query=st.text(string.ascii_lowercase + string.digits + "-", max_size=10),
    fragment=st.text(string.ascii_lowercase + string.digits, max_size=6),
)
def test_navigation_round_trip(
    chrome: Any, pages_server: PagesServer, path: str, query: str, fragment: str
) -> None:
    """Property 8: after chrome_navigate(url), chrome_get_url returns that url (paths, queries, fragments)."""
    h, _, tab = chrome
    url = pages_server.add(f"/nav/{path}.html", f"<title>{path}</title><p>{path}</p>")
    url += (f"?q={query}" if query else "") + (f"#{fragment}" if fragment else "")
    nav = h.ok("chrome_navigate", {"tabId": tab, "url": url, "waitUntil": "domcontentloaded"})
    assert nav["url"] == url
    assert h.ok("chrome_get_url", {"tabId": tab})["url"] == url


WORDS = st.text(string.ascii_letters + string.digits + "&<>\"'éü中文", min_size=1, max_size=8)
SHOW_WORDS = """const words = WORDS; document.title = 'c' + words.length;
document.body.replaceChildren(...words.map((w) => Object.assign(document.createElement('p'), {textContent: w})));
return document.body.children.length"""


@SETTINGS
@given(words=st.lists(WORDS, min_size=1, max_size=6), shot=st.integers(0, 9))
def test_content_consistency(chrome: Any, pages_server: PagesServer, words: list[str], shot: int) -> None:
    """Property 9: the screenshot is a PNG, the HTML is non-empty, and every word of the text is in the HTML.
    (One navigation per test: each example writes its paragraphs into the page with chrome_evaluate.)"""
    h, _, tab = chrome
    _on_page(h, tab, pages_server.add("/content.html", "<!doctype html><meta charset=utf-8><title>c</title>"))
    script = SHOW_WORDS.replace("WORDS", json.dumps(words))
    assert h.ok("chrome_evaluate", {"tabId": tab, "script": script})["result"] == len(words)
    content = h.ok("chrome_get_content", {"tabId": tab})["html"]
    text = h.ok("chrome_get_text", {"tabId": tab})["text"]
    assert content and "<html" in content
    plain = html.unescape(content)
    assert text.split(), text
    for word in text.split():
        assert word in plain
    assert text.split() == words
    if shot == 0:  # a screenshot costs ~100 ms here: every tenth example or so
        png = base64.b64decode(h.ok("chrome_screenshot", {"tabId": tab})["data"])
        assert png.startswith(b"\x89PNG\r\n\x1a\n")


def _on_page(h: ToolboxHarness, tab: str, url: str) -> None:
    if h.ok("chrome_get_url", {"tabId": tab})["url"] != url:
        h.ok("chrome_navigate", {"tabId": tab, "url": url})


def _on_playground(h: ToolboxHarness, tab: str, pages_server: PagesServer) -> None:
    _on_page(h, tab, pages_server.url("/play.html"))


@SETTINGS
@given(
    sel=st.sampled_from(["#field", "#area"]),
    first=st.text(TYPED, max_size=12),
    more=st.text(TYPED, max_size=12),
)
def test_fill_replaces_and_type_appends(
    chrome: Any, pages_server: PagesServer, sel: str, first: str, more: str
) -> None:
    """Property 10 (typing): fill replaces (the field holds an earlier example's text), type appends."""
    h, _, tab = chrome
    _on_playground(h, tab, pages_server)
    assert h.ok("chrome_fill", {"tabId": tab, "selector": sel, "value": first})["value"] == first
    assert h.ok("chrome_type", {"tabId": tab, "selector": sel, "text": more})["value"] == first + more


@SETTINGS
@given(buttons=st.lists(st.sampled_from(["#inc"] * 7 + ["#far"]), min_size=1, max_size=2))  # scrolling: slow
def test_click_runs_the_handler(chrome: Any, pages_server: PagesServer, buttons: list[str]) -> None:
    """Property 10 (click): each chrome_click runs the element's click handler once, whether the button is in
    view or out of view (#far, 3000 px down, scrolled to first): a real mouse click by the agent's executor."""
    h, _, tab = chrome
    _on_playground(h, tab, pages_server)
    before = int(h.ok("chrome_evaluate", {"tabId": tab, "script": TOP_JS})["result"])
    for sel in buttons:
        assert h.ok("chrome_click", {"tabId": tab, "selector": sel})["how"] == "mouse"
    assert int(h.ok("chrome_get_text", {"tabId": tab, "selector": "#count"})["text"]) == before + len(buttons)


TOP_JS = "scrollTo(0, 0); return document.getElementById('count').textContent"


@SETTINGS
@given(a=st.integers(-(10**6), 10**6), b=st.integers(-(10**6), 10**6), word=st.text(TYPED, max_size=10))
def test_evaluate_returns_the_value(chrome: Any, a: int, b: int, word: str) -> None:
    """Property 10 (evaluate): an expression or a function body runs in the page and its value comes back."""
    h, _, tab = chrome
    assert h.ok("chrome_evaluate", {"tabId": tab, "script": f"({a}) + ({b})"})["result"] == a + b
    script = f"const w = {json.dumps(word)}; return [w.length, w.toUpperCase(), {a} * 2]"
    assert h.ok("chrome_evaluate", {"tabId": tab, "script": script})["result"] == [
        len(word),
        word.upper(),
        a * 2,
    ]


@SETTINGS
@given(existing=st.sampled_from(["#field", "#inc", "#count", ".note", "p.note#note-2", "body > span"]),
       missing=st.text(string.ascii_lowercase, min_size=1, max_size=8),
       tool=st.sampled_from(["chrome_get_text", "chrome_get_content", "chrome_click"]))  # fmt: skip
def test_selector_location(
    chrome: Any, pages_server: PagesServer, existing: str, missing: str, tool: str
) -> None:
    """Property 11: a matching selector is found and used; one matching nothing answers element_not_found."""
    h, _, tab = chrome
    _on_playground(h, tab, pages_server)
    if tool != "chrome_click" or existing in ("#inc", "#field"):
        out = h.ok(tool, {"tabId": tab, "selector": existing})
        assert out.get("text") is not None or out.get("html") or out.get("clicked") == existing
    args: dict[str, Any] = {"tabId": tab, "selector": f"#missing-{missing}"}
    if tool == "chrome_click":
        args["timeoutMs"] = 50
    err = _error(h.call(tool, args), "element_not_found")
    assert err["selector"] == f"#missing-{missing}"


BAD = st.one_of(
    st.tuples(st.just("chrome_get_url"), st.builds(lambda t: {"tabId": t}, st.text(string.ascii_letters, min_size=1, max_size=10))),
    st.tuples(st.just("chrome_list_tabs"), st.builds(lambda b: {"browserId": b}, st.text(string.ascii_letters, min_size=1, max_size=10))),
    st.tuples(st.sampled_from(["chrome_navigate", "chrome_click", "chrome_fill"]), st.just({})),
    st.tuples(st.just("chrome_navigate"), st.builds(lambda u: {"tabId": "x", "url": 1, "timeoutMs": u}, st.text(max_size=3))),
    st.tuples(st.just("chrome_screenshot"), st.builds(lambda f: {"tabId": "x", "fullPage": f}, st.sampled_from(["yes!", [1], {"a": 1}]))),
    st.tuples(st.just("chrome_nope"), st.just({})),
)  # fmt: skip


@SETTINGS
@given(case=BAD)
def test_error_structure(chrome: Any, case: tuple[str, Any]) -> None:
    """Property 12: failures carry error (snake_case), message and their context fields."""
    h, _, _ = chrome
    tool, args = case
    result = h.call(tool, args)
    assert SNAKE.match(result.get("error", "")), result
    assert isinstance(result["message"], str) and result["message"]
    if result["error"] == "tab_not_found":
        assert result["tabId"] == args["tabId"]
    if result["error"] == "browser_not_found":
        assert result["browserId"] == args["browserId"]
    if result["error"] == "invalid_arguments":
        assert result["problems"] and all("field" in p for p in result["problems"])
