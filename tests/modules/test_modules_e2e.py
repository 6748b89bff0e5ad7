"""End to end: a small scripted "external agent" shops on the bundled site through one module's tools alone
(search, open a product, add it to the cart, read the cart), checked against the site's own state."""

from __future__ import annotations

import re
from typing import Any

from tests.fixtures.sites import site_state
from tests.modules.conftest import ToolboxHarness

PRODUCT = "Sky Blue Espresso Mug"


def test_chrome_module_shops(harness_factory: Any, sites: Any) -> None:
    h: ToolboxHarness = harness_factory(["chrome"])
    launched = h.ok("chrome_launch", {})
    tab = launched["tabId"]
    h.ok("chrome_navigate", {"tabId": tab, "url": sites.url("/shop/")})
    h.ok("chrome_fill", {"tabId": tab, "selector": "#search", "value": "espresso"})
    h.ok("chrome_click", {"tabId": tab, "selector": "#search-button"})
    h.ok("chrome_wait_for", {"tabId": tab, "selector": "#products .product-link"})
    listing = h.ok("chrome_get_text", {"tabId": tab, "selector": "#products"})["text"]
    assert PRODUCT in listing
    h.ok("chrome_click", {"tabId": tab, "selector": "#products li:first-child a.product-link"})
    h.ok("chrome_wait_for", {"tabId": tab, "selector": "#add-to-cart"})
    assert h.ok("chrome_get_text", {"tabId": tab, "selector": "#product-name"})["text"] == PRODUCT
    h.ok("chrome_click", {"tabId": tab, "selector": "#add-to-cart"})
    h.ok("chrome_wait_for", {"tabId": tab, "selector": "#added-message"})
    h.ok("chrome_navigate", {"tabId": tab, "url": sites.url("/shop/cart")})
    cart = h.ok("chrome_get_text", {"tabId": tab, "selector": "main"})["text"]
    assert PRODUCT in cart and "$7.25" in cart
    module = h.toolbox.registry.module("chrome")
    context = module.manager.browsers[launched["browserId"]].context  # type: ignore[attr-defined]
    state = h.run(site_state(context, sites))
    assert [(i["name"], i["qty"]) for i in state["cart"]] == [(PRODUCT, 1)]


def _id(snapshot: str, pattern: str) -> str:
    """The element id on the snapshot line matching ``pattern`` (what an LLM would read off the list)."""
    for line in snapshot.splitlines():
        m = re.match(r"[\s*]*\[(\d+)\]", line)
        if m and re.search(pattern, line):
            return m.group(1)
    raise AssertionError(f"no element matches {pattern!r} in:\n{snapshot}")


def test_browser_module_shops(harness_factory: Any, sites: Any) -> None:
    h: ToolboxHarness = harness_factory(["browser"])
    assert h.ok("browser", {"action": "status"})["running"] is False  # lazy: nothing started yet
    page = h.ok("browser", {"action": "navigate", "target_url": sites.url("/shop/")})
    search = _id(page["snapshot"], r'input .*"Search"')
    h.ok("browser", {"action": "act", "request": {"kind": "type", "target_id": search, "text": "espresso"}})
    snap = h.ok("browser", {"action": "snapshot"})["snapshot"]
    out = h.ok(
        "browser", {"action": "act", "request": {"kind": "click", "target_id": _id(snap, r'button "Search"')}}
    )
    assert out["effects"]["navigated"] is True
    out = h.ok(
        "browser", {"action": "act", "request": {"kind": "click", "target_id": _id(out["snapshot"], PRODUCT)}}
    )
    out = h.ok(
        "browser",
        {
            "action": "act",
            "request": {"kind": "click", "target_id": _id(out["snapshot"], r'button "Add to cart"')},
        },
    )
    snap = out.get("snapshot") or h.ok("browser", {"action": "snapshot"})["snapshot"]
    out = h.ok(
        "browser",
        {"action": "act", "request": {"kind": "click", "target_id": _id(snap, r'link "View cart"')}},
    )
    assert out["url"].endswith("/shop/cart")
    assert PRODUCT in out["snapshot"] and "$7.25" in out["snapshot"]
    module = h.toolbox.registry.module("browser")
    state = h.run(site_state(module.session.context.context, sites))  # type: ignore[attr-defined]
    assert [(i["name"], i["qty"]) for i in state["cart"]] == [(PRODUCT, 1)]
    status = h.ok("browser", {"action": "status"})
    assert status["running"] is True and status["url"].endswith("/shop/cart")
