"""The shop through real clicks and typing: search → product → cart → checkout → order."""

from __future__ import annotations

import re

from playwright.async_api import Page, expect

from kite_browser.evals.sites import SitesServer
from kite_browser.evals.sites.catalog import search
from tests.sites.helpers import state


def test_cheapest_blue_mug_is_well_defined() -> None:
    found = search(category="mugs", colour="blue", sort="price-asc")
    assert len(found) >= 3
    assert found[0].name == "Sky Blue Espresso Mug"
    assert found[0].price < found[1].price


async def test_search_and_filters(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/shop/"))
    await expect(page.locator("li.product")).to_have_count(21)
    await page.fill("#search", "mug")
    await page.select_option("#colour", "blue")
    await page.select_option("#sort", "price-asc")
    await page.click("#search-button")
    await expect(page).to_have_url(re.compile(r"colour=blue"))
    names = await page.locator("li.product h3").all_inner_texts()
    assert names[0] == "Sky Blue Espresso Mug"
    assert all("Blue" in n or "Navy" in n for n in names)
    prices = [
        float(p)
        for p in await page.locator("li.product").evaluate_all("els => els.map(e => e.dataset.price)")
    ]
    assert prices == sorted(prices)
    await page.fill("#search", "unicorn")
    await page.click("#search-button")
    await expect(page.locator("#no-results")).to_be_visible()


async def test_full_purchase_flow(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/shop/"))
    await page.fill("#search", "travel mug")
    await page.press("#search", "Enter")
    await page.get_by_role("link", name="Navy Travel Mug").click()
    await expect(page.locator("#product-name")).to_have_text("Navy Travel Mug")
    await page.fill("#qty", "2")
    await page.get_by_role("button", name="Add to cart").click()
    await expect(page.locator("#added-message")).to_contain_text("Added 2")
    await expect(page.locator("#cart-count")).to_have_text("2")
    s = await state(page, sites)
    assert s["cart"] == [
        {"product_id": "navy-travel-mug", "name": "Navy Travel Mug", "price": 18.5, "qty": 2}
    ]

    await page.click("#cart-link")
    row = page.locator("tr.cart-item[data-id=navy-travel-mug]")
    await row.locator("input.qty").fill("3")
    await row.get_by_role("button", name="Update").click()
    await expect(page.locator("#cart-total")).to_have_text("$55.50")
    await page.get_by_role("link", name="Proceed to checkout").click()

    await page.get_by_role("button", name="Place order").click()
    await expect(page.locator("#errors")).to_contain_text("Card number is invalid")
    assert (await state(page, sites))["orders"] == []

    await page.get_by_label("Full name").fill("Ada Lovelace")
    await page.get_by_label("Address").fill("1 Analytical Way, London")
    await page.get_by_label("Email").fill("ada@example.com")
    await page.get_by_label("Name on card").fill("Ada Lovelace")
    await page.locator("[autocomplete=cc-number]").fill("4242 4242 4242 4242")
    await page.locator("[autocomplete=cc-exp]").fill("12/39")
    await page.locator("[autocomplete=cc-csc]").fill("123")
    await page.get_by_role("button", name="Place order").click()
    await expect(page.locator("#order-confirmation")).to_be_visible()
    number = await page.locator("#order-number").inner_text()
    assert number.startswith("KITE-")

    s = await state(page, sites)
    assert s["cart"] == []
    (order,) = s["orders"]
    assert order["order_number"] == number
    assert order["total"] == 55.5
    assert order["card_last4"] == "4242"
    assert order["items"][0]["qty"] == 3


async def test_remove_from_cart(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/shop/product/red-enamel-mug"))
    await page.click("#add-to-cart")
    await page.goto(sites.url("/shop/cart"))
    await page.get_by_role("button", name="Remove").click()
    await expect(page.locator("#cart-empty")).to_be_visible()
    assert (await state(page, sites))["cart"] == []


async def test_chinese_shop_flow(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/zh/shop/"))
    await page.fill("#search", "蓝色")
    await page.get_by_role("button", name="搜索").click()
    await page.get_by_role("link", name="经典蓝色马克杯").click()
    await page.get_by_role("button", name="加入购物车").click()
    await page.get_by_role("link", name="查看购物车").click()
    await page.get_by_role("link", name="去结算").click()
    await expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
    await page.get_by_label("姓名", exact=True).fill("张三")
    await page.get_by_label("地址").fill("北京市海淀区 1 号")
    await page.get_by_label("电子邮箱").fill("zhang@example.com")
    await page.get_by_label("卡号").fill("4111111111111111")
    await page.get_by_label("有效期").fill("01/38")
    await page.get_by_label("安全码").fill("999")
    await page.get_by_role("button", name="立即支付").click()
    await expect(page.locator("#order-confirmation")).to_have_text("谢谢！您的订单已提交。")
    s = await state(page, sites)
    assert s["orders"][0]["lang"] == "zh"
    assert s["orders"][0]["name"] == "张三"
