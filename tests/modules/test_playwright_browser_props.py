"""Properties of the playwright_browser module (seed 004) against real headless Chromium sessions."""

from __future__ import annotations

import html
import itertools
import json
import re
import string
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kite_browser.agent.modules.playwright_browser import files
from tests.fixtures.browser import PagesServer
from tests.modules.conftest import ToolboxHarness

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900), pytest.mark.xdist_group("playwright_browser_props")]

SETTINGS = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
WORD = st.text(string.ascii_letters + string.digits, min_size=1, max_size=10)
LABEL = st.text(string.ascii_letters + string.digits + " &<>'\"", min_size=1, max_size=16).filter(
    lambda s: s.strip() != ""
)
NAME = re.compile(r"^(?P<id>[A-Za-z0-9_.-]+)_(?P<action>[a-z]+)_\d{8}_\d{6}(_\d+)?\.(txt|html|png)$")
KEYS = {"success", "stdout", "stderr", "output_files"}


@pytest.fixture(scope="module")
def pw(harness_factory: Any, tmp_path_factory: Any) -> ToolboxHarness:
    out = tmp_path_factory.mktemp("pwb")
    h: ToolboxHarness = harness_factory(
        ["playwright_browser"], **{"module_settings.playwright_browser.output_dir": str(out)}
    )
    assert h.call("playwright_browser", {"action": "launch"})["success"]
    return h


def call(h: ToolboxHarness, **args: Any) -> dict[str, Any]:
    result = h.call("playwright_browser", args)
    assert set(result) == KEYS, result
    for path in result["output_files"]:
        assert NAME.match(Path(path).name), path
        assert Path(path).is_file()
    return result


def failed(result: dict[str, Any], kind: str) -> None:
    assert result["success"] is False and result["stderr"].startswith(f"{kind}: "), result
    assert result["output_files"] == []


LAUNCHES: list[int] = [0]
MODEL: set[str] = set()


@SETTINGS
@given(op=st.sampled_from(["launch", "close", "list", "navigate"]), bid=st.sampled_from(["s1", "s2"]))
def test_session_lifecycle(pw: ToolboxHarness, pages_server: PagesServer, op: str, bid: str) -> None:
    """Sessions: launch adds, close removes (twice is fine), list shows exactly the running ones, an action on
    a closed or unknown id is browser_not_found."""
    url = pages_server.add("/life.html", "<title>Life</title><p>alive</p>")
    if op == "launch" and (bid in MODEL or LAUNCHES[0] >= 6):
        op = "list"  # launching is the slow part: a few launches, many other steps
    if op == "launch":
        LAUNCHES[0] += 1
        assert call(pw, action="launch", browser_id=bid)["success"]
        MODEL.add(bid)
    elif op == "close":
        r = call(pw, action="close", browser_id=bid)
        assert r["success"] and r["output_files"] == []
        MODEL.discard(bid)
    elif op == "navigate":
        r = call(pw, action="navigate", browser_id=bid, url=url, timeout=10)
        if bid in MODEL:
            assert r["success"] and "Life" in r["stdout"]
        else:
            failed(r, "browser_not_found")
    listed = json.loads(call(pw, action="list")["stdout"])
    assert {s["browser_id"] for s in listed} - {"default"} == MODEL
    assert all(s["status"] == "active" for s in listed)


FORM = """<!doctype html><title>{title}</title><h1 id="head">{title}</h1>
<label for="field">{label}</label><input id="field" name="field">
<button id="inc" onclick="document.getElementById('count').textContent = +document.getElementById('count').textContent + 1">{button}</button>
<p>count: <span id="count">0</span></p><a href="/elsewhere.html">{link}</a>
<select id="pick" aria-label="Pick"><option>{opt1}</option><option>{opt2}</option></select>
<input type="checkbox" id="agree"><label for="agree">Agree</label>"""

HASH_FORM = """<!doctype html><meta charset=utf-8><title>form</title><script>
// Renders FORM from the JSON in the URL's fragment. A fragment navigation loads no document (no 500 ms
// network-idle wait per example); the Navigation API's navigate event fires before the navigation commits,
// so the new form is in place before the tool reads the page.
const esc = (t) => String(t).replace(/[&<>"']/g, (c) => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'})[c]);
function render(url) {
  const raw = new URL(url).hash.slice(1);
  if (!raw) return;
  const s = JSON.parse(decodeURIComponent(raw));
  document.title = s.title;
  document.body.innerHTML = FORM.replace(/{(\\w+)}/g, (_, k) => esc(s[k]));
}
const FORM = TEMPLATE;
navigation.addEventListener('navigate', (e) => render(e.destination.url));
addEventListener('DOMContentLoaded', () => render(location.href));
</script><body></body>"""


EXAMPLES = itertools.count()


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(s)).strip()


def _form_url(pages_server: PagesServer, spec: dict[str, str], reload: bool, path: str) -> str:
    """Every tenth example loads a document of its own (a real page load, network-idle wait and all); the
    others navigate to a fragment of one page that renders the same form from it."""
    e = html.escape
    if reload:
        body = FORM.format(**{k: v if k in ("title", "opt1", "opt2", "n") else e(v) for k, v in spec.items()})
        return pages_server.add(f"/p/{path}.html", body)
    base = pages_server.add(
        "/pwb/form.html", HASH_FORM.replace("TEMPLATE", json.dumps(FORM.split("</title>", 1)[1]))
    )
    return base + "#" + quote(json.dumps(spec), safe="")


@SETTINGS
@given(
    path=WORD, title=WORD, label=LABEL, button=LABEL, link=LABEL, opt1=WORD, opt2=WORD, typed=WORD,
    clicks=st.integers(0, 2), xpath=st.booleans(), reload=st.integers(0, 9).map(lambda n: n == 0),
)  # fmt: skip
def test_navigate_interact_and_content(
    pw: ToolboxHarness, pages_server: PagesServer, path: str, title: str, label: str, button: str,
    link: str, opt1: str, opt2: str, typed: str, clicks: int, xpath: bool, reload: bool,
) -> None:  # fmt: skip
    """Navigation round trip (URL and title in the answer and the saved page), content consistency (every
    control and text of the abstract is in the HTML), interaction effects (typing and clicks show up)."""
    spec = {"title": title, "label": label, "button": button, "link": link, "opt1": opt1, "opt2": opt2}
    spec["n"] = str(next(EXAMPLES))  # never the same URL twice: each example gets a freshly rendered form
    url = _form_url(pages_server, spec, reload, path)
    r = call(pw, action="navigate", url=url, content_mode="html", timeout=10)
    assert r["success"] and f"navigated to {url}" in r["stdout"] and f": {title!r}" in r["stdout"]
    page_html = _norm(Path(r["output_files"][0]).read_text())
    assert f"<title>{title}</title>" in page_html and f'<h1 id="head">{title}</h1>' in page_html
    sel = '//*[@id="field"]' if xpath else "#field"
    r = call(pw, action="type", selector=sel, text=typed, timeout=5)
    assert r["success"]
    for _ in range(clicks):
        r = call(pw, action="click", selector="#inc", timeout=5)
        assert r["success"]
    abstract = Path(r["output_files"][-1]).read_text()  # the page as the last action saved it
    if reload:  # a screenshot (~100 ms) on the examples that load a document of their own
        r = call(pw, action="screenshot")
        png, txt = r["output_files"]
        assert Path(png).read_bytes()[:4] == b"\x89PNG"
        assert Path(txt).read_text().split("\n", 3)[1:3] == abstract.split("\n", 3)[1:3]  # url, title
    assert f"url: {url}" in abstract and f"title: {title}" in abstract
    assert f"[input] {_norm(label)} -> #field\n  type: text\n  value: {typed}" in abstract
    assert "[select] Pick -> #pick" in abstract and f"options: {opt1}, {opt2}" in abstract
    assert "[checkbox] Agree -> #agree\n  checked: false" in abstract
    text = abstract.split("=== page text ===", 1)[1]
    assert f"count: {clicks}\n" in text
    for line in (
        abstract.split("=== interactive controls ===", 1)[1].split("=== page text ===")[0].splitlines()
    ):
        m = re.match(r"\[(\w+)\] (.*) -> ", line)
        if m and m.group(2) != "(unnamed)":
            assert _norm(m.group(2)) in page_html, (m.group(2), page_html)  # text is a subset of the HTML


@SETTINGS
@given(
    selector=st.one_of(
        WORD.map(lambda w: f"#missing-{w}"),
        WORD.map(lambda w: f"//*[@id='none-{w}']"),
        st.sampled_from(["a[[", "##", "div >> >>", "//*[", ">>>", "[=x]"]),
    ),
    action=st.sampled_from(["click", "type"]),
)
def test_selector_errors_are_typed_and_quick(
    pw: ToolboxHarness, pages_server: PagesServer, selector: str, action: str
) -> None:
    """A selector matching nothing answers element_not_found within its timeout, a malformed one
    invalid_selector; the session keeps working. (One navigation per test: the page stays.)"""
    url = pages_server.add("/sel.html", "<title>Sel</title><input id='real'>")
    listed = json.loads(call(pw, action="list")["stdout"])
    if next(s["url"] for s in listed if s["browser_id"] == "default") != url:
        call(pw, action="navigate", url=url, timeout=10)
    t0 = time.monotonic()
    r = call(pw, action=action, selector=selector, text="x", timeout=0.1)
    assert time.monotonic() - t0 < 0.1 + 5  # its timeout, plus a loaded machine's slack
    assert r["success"] is False
    assert r["stderr"].split(":", 1)[0] in ("element_not_found", "invalid_selector"), r
    assert call(pw, action="type", selector="#real", text="ok", timeout=5)["success"]


@SETTINGS
@given(
    bid=st.from_regex(r"[A-Za-z0-9_.-]{1,12}", fullmatch=True),
    action=st.sampled_from(["launch", "navigate", "click", "type", "screenshot"]),
    n=st.integers(1, 5),
    ext=st.sampled_from(["txt", "html", "png"]),
)
def test_file_naming_never_overwrites(tmp_path_factory: Any, bid: str, action: str, n: int, ext: str) -> None:
    """File naming: <browser_id>_<action>_<YYYYmmdd_HHMMSS>.<ext>; saves within one second never overwrite."""
    folder = tmp_path_factory.mktemp("names")
    paths = [files.save(folder, bid, action, ext, f"{i}".encode()) for i in range(n)]
    assert len(set(paths)) == n
    for i, p in enumerate(paths):
        m = NAME.match(p.name)
        assert m and m.group("id") == bid and m.group("action") == action and p.suffix == f".{ext}"
        assert p.read_bytes() == f"{i}".encode()
