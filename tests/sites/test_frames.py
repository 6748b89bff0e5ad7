"""Frames: same-origin and cross-origin iframes, nested open shadow roots."""

from __future__ import annotations

from playwright.async_api import Page, expect

from kite_browser.evals.sites import SitesServer
from tests.sites.helpers import state


async def test_same_origin_iframe_form(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/frames/"))
    frame = page.frame_locator("#same-frame")
    await frame.get_by_label("Your name").fill("Lin")
    await frame.get_by_role("button", name="Send").click()
    await expect(frame.locator("#inner-result")).to_have_text("Thanks, Lin!")
    await expect(page.locator("#same-result")).to_have_text("Same-origin frame says: submitted Lin")


async def test_cross_origin_iframe_is_really_cross_origin(page: Page, sites: SitesServer) -> None:
    assert sites.cross_origin_url != sites.base_url
    await page.goto(sites.url("/frames/"))
    frame = page.frame_locator("#cross-frame")
    await expect(frame.locator("#frame-origin")).to_have_text(sites.cross_origin_url)
    blocked = await page.evaluate(
        "() => { try { return document.getElementById('cross-frame').contentDocument === null; } catch (e) { return true; } }"
    )
    assert blocked
    await frame.get_by_role("button", name="Cross-origin button").click()
    await expect(page.locator("#cross-result")).to_have_text(
        f"Cross-origin frame says: clicked 1 (from {sites.cross_origin_url})"
    )
    await expect(frame.locator("#cross-frame-result")).to_have_text("Clicked 1 time(s)")
    s = await state(page, sites)
    clicks = [e for e in s["events"] if e["name"] == "cross_origin_click"]
    assert clicks and clicks[-1]["origin"] == sites.cross_origin_url


async def test_nested_shadow_dom_widgets(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/frames/"))
    await page.get_by_role("button", name="Increment").click()
    await page.get_by_role("button", name="Increment").click()
    await expect(page.locator("#shadow-result")).to_have_text("Counter: 2")
    await page.locator("#shadow-email").fill("nested@example.com")  # pierces both shadow roots
    await page.get_by_role("button", name="Subscribe").click()
    await expect(page.locator("#shadow-result")).to_have_text("Nested shadow subscribe: nested@example.com")
    depth = await page.evaluate(
        "() => !!document.querySelector('#card-widget').shadowRoot.querySelector('#inner-widget').shadowRoot.querySelector('#shadow-subscribe')"
    )
    assert depth
    names = [e["name"] for e in (await state(page, sites))["events"]]
    assert names.count("shadow_increment") == 2 and "shadow_subscribe" in names
