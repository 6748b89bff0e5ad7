"""playwright_browser end to end on the bundled shop, and with bad input."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest

from tests.modules.conftest import ToolboxHarness

# one playwright_browser module (a module fixture) for the file, on one xdist worker
pytestmark = pytest.mark.xdist_group("playwright_browser_io")


@pytest.fixture(scope="module")
def pw(harness_factory: Any, tmp_path_factory: Any) -> ToolboxHarness:
    out = tmp_path_factory.mktemp("pwb-io")
    return harness_factory(  # type: ignore[no-any-return]
        ["playwright_browser"], **{"module_settings.playwright_browser.output_dir": str(out)}
    )


def ok(h: ToolboxHarness, **args: Any) -> dict[str, Any]:
    r = h.call("playwright_browser", args)
    assert r.get("success") is True, r
    return r


def saved(r: dict[str, Any]) -> str:
    return Path(r["output_files"][-1]).read_text()


def selector_of(abstract: str, kind: str, name_pattern: str) -> str:
    m = re.search(rf"^\[{kind}\] {name_pattern} -> (.+)$", abstract, re.M)
    assert m, f"no [{kind}] {name_pattern} in:\n{abstract[:2000]}"
    return m.group(1)


def test_scripted_agent_shops_through_the_tool(pw: ToolboxHarness, sites: Any) -> None:
    """An external agent: search -> open a product -> add to cart -> read the cart, using only the saved
    abstracts to find its next selector."""
    ok(pw, action="launch", browser_id="shop")
    page = saved(ok(pw, action="navigate", browser_id="shop", url=sites.url("/shop/"), timeout=15))
    ok(pw, action="type", browser_id="shop", selector=selector_of(page, "input", "Search"), text="lamp")
    found = saved(ok(pw, action="click", browser_id="shop", selector=selector_of(page, "button", "Search")))
    assert "q=lamp" in found.splitlines()[1]
    link = re.search(r"^\[link\] (.*Lamp.*) -> (.+)$", found, re.M)
    assert link, found
    product_name = link.group(1)
    product = saved(ok(pw, action="click", browser_id="shop", selector=link.group(2)))
    assert f"title: {product_name}" in product
    added = saved(
        ok(pw, action="click", browser_id="shop", selector=selector_of(product, "button", "Add to cart"))
    )
    assert "added" in added.splitlines()[1]
    cart = saved(
        ok(pw, action="click", browser_id="shop", selector=selector_of(added, "link", r"Cart \(1\)"))
    )
    text = cart.split("=== page text ===", 1)[1]
    assert product_name in text
    ok(pw, action="close", browser_id="shop")


def test_bad_input_is_typed_and_the_module_keeps_working(
    pw: ToolboxHarness, pages_server: Any, never_loads: str
) -> None:
    call = pw.call
    assert call("playwright_browsr", {"action": "list"})["error"] == "unknown_tool"
    for args in ({}, {"action": "fly"}, {"action": "navigate"}, {"action": "click"}, {"action": "type", "selector": "#a"},
                 {"action": "list", "timeout": "soon"}, {"action": "list", "browser_id": "a b"}, {"action": "list", "x": 1}):  # fmt: skip
        assert call("playwright_browser", args)["error"] == "invalid_arguments", args
    r = call(
        "playwright_browser", {"action": "navigate", "browser_id": "ghost", "url": pages_server.url("/")}
    )
    assert r["success"] is False and r["stderr"].startswith("browser_not_found: ")
    ok(pw, action="launch", browser_id="bad")
    first = ok(pw, action="launch", browser_id="bad")  # launching an existing id replaces it
    assert first["output_files"]
    for url in ("javascript:alert(1)", "file:///etc/passwd", "about:blank", "ftp://x.org/"):
        r = call("playwright_browser", {"action": "navigate", "browser_id": "bad", "url": url})
        assert r["success"] is False and r["stderr"].startswith("invalid_url: "), r
    t0 = time.monotonic()
    r = call(
        "playwright_browser", {"action": "navigate", "browser_id": "bad", "url": never_loads, "timeout": 1}
    )
    assert r["success"] is False and r["stderr"].startswith("navigation_timeout: "), r
    assert time.monotonic() - t0 < 6
    url = pages_server.add("/plain.html", "<title>Plain</title><p id='t'>text</p>")
    r = call(
        "playwright_browser",
        {"action": "type", "browser_id": "bad", "selector": "#t", "text": "x", "timeout": 1},
    )
    assert r["success"] is False
    ok(pw, action="navigate", browser_id="bad", url=url, timeout=10)
    r = call(
        "playwright_browser",
        {"action": "type", "browser_id": "bad", "selector": "#t", "text": "x", "timeout": 1},
    )
    assert r["success"] is False and r["stderr"].startswith("not_editable: "), r
    html = ok(pw, action="navigate", browser_id="bad", url=url, content_mode="html")
    assert html["output_files"][0].endswith(".html") and '<p id="t">text</p>' in saved(html)
    ok(pw, action="close", browser_id="bad")
    assert ok(pw, action="close", browser_id="bad")["stdout"]  # closing twice is fine
    r = call("playwright_browser", {"action": "screenshot", "browser_id": "bad"})
    assert r["success"] is False and r["stderr"].startswith("browser_not_found: ")
