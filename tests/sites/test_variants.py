"""Page variants of the bundled sites (evals/sites/variants.py), in a real Chromium: renamed ids and classes,
reordered lists, synonyms, a product on page 2, a cookie banner; the static apps renamed with their scripts."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.async_api import Page, expect

from kite_browser.evals.sites import SitesServer
from kite_browser.evals.sites.variants import MARK, Variant
from tests.fixtures.sites import site_state

Variants = Callable[[int], SitesServer]


async def _marked(page: Page, mark: str) -> dict[str, str]:
    """The id, class and text of the element with the hidden marker ``mark``."""
    el = page.locator(f"[{MARK}='{mark}']")
    assert await el.count() == 1, f"{mark}: {await el.count()} elements"
    return {
        "id": await el.get_attribute("id") or "",
        "class": await el.get_attribute("class") or "",
        "text": (await el.inner_text()).strip(),
    }


async def test_variant_0_is_the_sites_as_designed_without_markers(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/shop/cart"))
    await page.goto(sites.url("/shop/product/classic-blue-mug"))
    assert await page.locator("#add-to-cart").inner_text() == "Add to cart"
    assert await page.locator(f"[{MARK}]").count() == 0
    assert await page.locator("[role=dialog]").count() == 0


async def test_ids_and_classes_are_renamed_and_lists_reordered(page: Page, sites_variant: Variants) -> None:
    v0, v1 = sites_variant(0), sites_variant(1)
    await page.goto(v0.url("/shop/product/classic-blue-mug"))
    plain = await _marked(page, "add-to-cart")
    header0 = await page.locator("header a").evaluate_all("els => els.map(e => e.textContent)")
    await page.goto(v1.url("/shop/product/classic-blue-mug"))
    renamed = await _marked(page, "add-to-cart")
    assert plain == {"id": "add-to-cart", "class": "primary", "text": "Add to cart"}
    assert renamed["id"] not in ("", "add-to-cart") and renamed["class"] != "primary"
    assert renamed["text"] == "Add to cart"  # variant 1 keeps the labels
    assert await page.locator("#add-to-cart, #qty, .primary").count() == 0
    label_for = await page.locator("label", has_text="Quantity").get_attribute("for")
    assert label_for == (await _marked(page, "qty"))["id"]  # the label still names its field
    bg = await page.locator(f"[{MARK}='add-to-cart']").evaluate("e => getComputedStyle(e).backgroundColor")
    assert bg == "rgb(230, 57, 70)"  # button.primary's colour under its new class name
    header1 = await page.locator("header a").evaluate_all("els => els.map(e => e.textContent)")
    assert sorted(header1) == sorted(header0) and header1 != header0
    again = await page.context.request.get(v1.url("/shop/product/classic-blue-mug"))
    assert f'id="{renamed["id"]}"' in await again.text()  # the same name on every response


async def test_labels_change_and_a_product_moves_to_page_2(page: Page, sites_variant: Variants) -> None:
    v2 = sites_variant(2)
    await page.goto(v2.url("/shop/product/classic-blue-mug"))
    assert (await _marked(page, "add-to-cart"))["text"] == "Add to basket"
    assert (await _marked(page, "cart-link"))["text"].startswith("Basket")
    await page.get_by_role("button", name="Add to basket").click()
    await page.wait_for_url("**/shop/product/classic-blue-mug?added=1")
    assert (await site_state(page, v2))["cart_count"] == 1  # the renamed form still works
    await page.goto(v2.url("/shop/"))
    assert await page.get_by_role("link", name="Black Backpack").count() == 0
    assert "21 products" in await page.locator("main").inner_text()
    await page.get_by_role("link", name="Next page").click()
    await page.wait_for_url("**/shop/?page=2")
    names = await page.locator("main h3").all_inner_texts()
    assert names == ["Black Backpack", "Black Floor Lamp"]


async def test_a_cookie_banner_must_be_closed_first(page: Page, sites_variant: Variants) -> None:
    v3 = sites_variant(3)
    await page.goto(v3.url("/shop/"))
    banner = page.get_by_role("dialog", name="Cookie consent")
    assert await banner.is_visible()
    link = page.get_by_role("link", name="Sky Blue Espresso Mug")
    with pytest.raises(Exception, match="intercepts pointer events"):
        await link.click(timeout=1500)  # the banner covers the page
    await page.get_by_role("button", name="Only necessary cookies").click()
    assert await banner.count() == 0
    await link.click()
    await page.wait_for_url("**/shop/product/sky-blue-espresso-mug")
    assert await page.get_by_role("dialog", name="Cookie consent").count() == 0  # closed for this visitor
    await page.goto(v3.url("/frames/"))
    frame = page.frame_locator("iframe[title='Newsletter signup (same origin)']")
    assert await frame.locator("[role=dialog]").count() == 0


async def test_the_static_apps_are_renamed_with_their_scripts(page: Page, sites_variant: Variants) -> None:
    v1 = sites_variant(1)
    await page.goto(v1.url("/dynamic/"))
    feed = await _marked(page, "feed")
    assert (
        feed["id"].startswith("feed-") and await page.locator("#feed, .feed-item, #open-modal").count() == 0
    )
    headings = await page.locator("main h2").all_inner_texts()
    assert headings[-1] == "Feed (infinite scroll)" and headings[:2] != ["Latest news", "Modal"]  # reordered
    await expect(page.get_by_role("button", name="Read more")).to_be_visible()  # the news the script loads
    await page.get_by_role("button", name="Show toast").click()  # a script-made element, its class renamed
    toast = page.get_by_role("status").filter(has_text="Saved successfully (1)")
    assert await toast.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(51, 51, 51)"
    assert not (await toast.get_attribute("class") or "toast").startswith("toast ")
    await page.mouse.wheel(0, 100_000)
    items = page.locator(f"#{feed['id']} > div", has_text="Feed item 20")
    await expect(items).to_have_count(1)  # the feed's script found its own renamed elements

    await page.goto(v1.url("/forms/"))
    assert (await _marked(page, "full-name"))["id"] != "full-name"
    await page.get_by_label("Full name").fill("Ada")
    await page.get_by_role("combobox", name="Favourite fruit").click()  # aria-labelledby follows the rename
    await page.get_by_role("option", name="Mango").click()
    await page.get_by_role("button", name="Submit").click()
    await expect(page.get_by_text(re.compile(r"^Submission #\d+ received\.$"))).to_be_visible()
    submitted = (await site_state(page, v1))["form_submissions"][-1]
    assert (submitted["full_name"], submitted["fruit"]) == ("Ada", "mango")

    await page.goto(v1.url("/frames/"))
    await page.get_by_role(
        "button", name="Increment"
    ).click()  # a shadow root's markup, renamed in its script
    await expect(page.get_by_text("Counter: 1")).to_be_visible()
    await page.goto(v1.url("/test/counter.html"))
    assert await page.locator("#increment").count() == 1  # the adversarial test pages keep their ids


def test_a_variant_is_one_of_0_to_3() -> None:
    with pytest.raises(ValueError, match="sites variant must be one of 0, 1, 2, 3, not 4"):
        Variant(4)
    assert Variant(1).order([1, 2, 3], "x") != [1, 2, 3] and Variant(0).order([1, 2, 3], "x") == [1, 2, 3]
    assert Variant(1).name("add-to-cart") == Variant(1).name("add-to-cart") != Variant(2).name("add-to-cart")
