"""The adversarial /test/ pages behave as documented (so engine tests can rely on them)."""

from __future__ import annotations

from playwright.async_api import Error, Page, expect

from kite_browser.evals.sites import SitesServer
from tests.sites.helpers import state

COVERED = "(sel) => { const r = document.querySelector(sel).getBoundingClientRect(); const top = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2); return top && top.id; }"


async def test_overlay_covers_button_until_accepted(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/test/overlay.html"))
    assert await page.evaluate(COVERED, "#buy-now") != "buy-now"
    await page.get_by_role("button", name="Accept cookies").click()
    assert await page.evaluate(COVERED, "#buy-now") == "buy-now"
    await page.get_by_role("button", name="Buy now").click()
    await expect(page.locator("#result")).to_have_text("Bought!")


async def test_hidden_elements(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/test/hidden.html"))
    await expect(page.locator("#visible-button")).to_be_visible()
    for sel in (
        "#display-none",
        "#parent-display-none",
        "#visibility-hidden",
        "#zero-size",
        "#hidden-attr",
        "#in-closed-details",
    ):
        await expect(page.locator(sel)).to_be_hidden()
    assert await page.locator("#opacity-zero").evaluate("e => getComputedStyle(e).opacity") == "0"
    assert await page.locator("#inert-button").evaluate("e => e.closest('[inert]') !== null")
    rect = await page.locator("#off-screen").bounding_box()
    assert rect is not None and rect["x"] + rect["width"] < 0
    visible_buttons = await page.evaluate(
        "() => [...document.querySelectorAll('button')].filter(b => { const r = b.getBoundingClientRect(); const s = getComputedStyle(b);"
        " return r.width > 1 && r.height > 1 && r.right > 0 && r.bottom > 0 && s.visibility === 'visible' && s.opacity !== '0'"
        " && s.clipPath === 'none' && s.clip === 'auto' && !b.closest('[inert]'); }).map(b => b.id)"
    )
    assert visible_buttons == ["visible-button"]


async def test_big_page_and_deep_shadow(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/test/big?n=10000"))
    count = await page.evaluate("document.querySelectorAll('*').length")
    assert 10000 <= count <= 10050
    await page.goto(sites.url("/test/shadow-deep?depth=30"))
    await page.locator("#deep-input").fill("bottom")
    await page.get_by_role("button", name="Deepest button").click()
    await expect(page.locator("#result")).to_have_text("Deep button clicked: bottom")
    depth = await page.evaluate(
        "() => { let n = 0, host = document.getElementById('host-0'); while (host && host.shadowRoot) { n++; host = host.shadowRoot.querySelector('div'); } return n; }"
    )
    assert depth == 30


async def test_scripts_that_throw_leave_content(page: Page, sites: SitesServer) -> None:
    errors: list[Error] = []
    page.on("pageerror", lambda exc: errors.append(exc))
    await page.goto(sites.url("/test/throws.html"))
    await expect(page.locator("#title")).to_have_text("Every script on this page throws")
    assert len(errors) >= 3  # head scripts and body script failed before the load event
    await page.get_by_role("button", name="Broken button").click()
    await page.wait_for_function("() => document.readyState === 'complete'")


async def test_document_open_and_detaching_iframe(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/test/document-open.html"))
    await page.click("#replace")
    await expect(page.locator("#after")).to_have_text("Replaced document")
    await page.get_by_role("button", name="New button").click()
    await expect(page.locator("#out")).to_have_text("New button works")
    await expect(page).to_have_title("After document.open")

    await page.goto(sites.url("/test/detach-iframe.html?ms=200"))
    await expect(page.locator("#status")).to_have_text("Iframe detached")
    assert len(page.frames) == 1


async def test_injection_page_and_links(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/test/injection.html"))
    await expect(page.locator("#injection-text")).to_contain_text("Ignore your previous instructions")
    await page.click("#injection-button")
    await expect(page.locator("#result")).to_have_text("Injection button clicked")
    assert any(e["name"] == "injection_clicked" for e in (await state(page, sites))["events"])
    await page.goto(sites.url("/test/links.html"))
    await expect(page.locator("a.item-link")).to_have_count(200)
    await page.get_by_role("link", name="Item 137 — details").click()
    await expect(page.locator("#selected")).to_have_text("Selected item 137")


async def test_download_link(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/test/download.html"))
    async with page.expect_download() as info:
        await page.click("#download-link")
    download = await info.value
    assert download.suggested_filename == "kite-report.csv"
    path = await download.path()
    assert path.read_text().startswith("order,item,qty,price")


async def test_mouse_widgets(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/test/slider.html"))
    track = await page.locator("#track").bounding_box()
    thumb = await page.locator("#thumb").bounding_box()
    assert track and thumb
    await page.mouse.move(thumb["x"] + thumb["width"] / 2, thumb["y"] + thumb["height"] / 2)
    await page.mouse.down()
    await page.mouse.move(track["x"] + track["width"] * 0.75, track["y"] + 4, steps=5)
    await page.mouse.up()
    await expect(page.locator("#slider-value")).to_have_text("75")

    await page.goto(sites.url("/test/sortable.html"))
    alpha = await page.locator("#sortable li", has_text="Alpha").bounding_box()
    charlie = await page.locator("#sortable li", has_text="Charlie").bounding_box()
    assert alpha and charlie
    await page.mouse.move(alpha["x"] + 20, alpha["y"] + alpha["height"] / 2)
    await page.mouse.down()
    await page.mouse.move(charlie["x"] + 20, charlie["y"] + charlie["height"] * 0.8, steps=8)
    await page.mouse.up()
    await expect(page.locator("#order")).to_have_text("Bravo, Charlie, Alpha, Delta, Echo")


async def test_listbox_combobox_nested_counter_scrollable(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/test/listbox.html"))
    await page.get_by_role("option", name="Large", exact=True).click()
    await expect(page.locator("#size-result")).to_have_text("Size: Large")
    await page.get_by_role("combobox", name="City").press_sequentially("Sh")
    await expect(page.locator("#city-options [role=option]")).to_have_text(["Shanghai", "Shenzhen"])
    await page.get_by_role("option", name="Shenzhen").click()
    await expect(page.locator("#city-result")).to_have_text("City: Shenzhen")

    await page.goto(sites.url("/test/nested-clickables.html"))
    await page.get_by_text("Pro", exact=True).click()
    await expect(page.locator("#result")).to_have_text("Card clicked")
    await page.get_by_role("button", name="Edit").click()
    await expect(page.locator("#result")).to_have_text("Inner button clicked")

    await page.goto(sites.url("/test/counter.html"))
    await page.click("#increment")
    await page.click("#increment")
    await page.click("#add-item")
    await expect(page.locator("#count")).to_have_text("2")
    await expect(page.get_by_role("button", name="Item 1")).to_be_visible()

    await page.goto(sites.url("/test/scrollable.html"))
    assert await page.locator("#scroller").evaluate("e => e.scrollTop") == 0
    await page.get_by_role("button", name="Select row 40").click()
    await expect(page.locator("#result")).to_have_text("Selected row 40")
    assert await page.locator("#scroller").evaluate("e => e.scrollTop") > 0
