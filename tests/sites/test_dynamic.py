"""The dynamic page: delayed content, dialogs, new tabs, modal, hover menu, drag and drop, infinite scroll."""

from __future__ import annotations

import re
import time
from typing import Any

from playwright.async_api import BrowserContext, Dialog, Page, expect

from kite_browser.evals.sites import SitesServer
from tests.sites.helpers import state


def events(s: dict, name: str) -> list[dict]:
    return [e for e in s["events"] if e["name"] == name]


async def test_delayed_content_arrives_later(page: Page, sites: SitesServer) -> None:
    started = time.monotonic()
    await page.goto(sites.url("/dynamic/"), wait_until="commit")
    await expect(page.locator("#loaded-message")).to_have_text("Loaded 5 items")
    assert time.monotonic() - started >= 0.6
    await expect(page.locator(".news-item")).to_have_count(5)
    await expect(page.locator("#delayed-content")).to_have_attribute("aria-busy", "false")
    assert int(await page.locator("#delayed-content").get_attribute("data-loaded-after-ms") or 0) >= 650


async def test_dialogs_outcome_shown_and_recorded(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/dynamic/"))
    seen: list[tuple[str, str]] = []

    async def handle(dialog: Dialog) -> None:
        seen.append((dialog.type, dialog.message))
        if dialog.type == "prompt":
            await dialog.accept("Ada")
        elif dialog.type == "confirm":
            await dialog.dismiss()
        else:
            await dialog.accept()

    def recorded(name: str) -> Any:
        """The page records each outcome with a POST after showing it: read the state once it is answered
        (under load the state was read before the prompt's POST arrived)."""
        return page.expect_response(
            lambda r: r.url.endswith("/api/event") and f'"name":"{name}"' in (r.request.post_data or "")
        )

    page.on("dialog", handle)
    await page.click("#alert-button")
    await expect(page.locator("#dialog-result")).to_have_text("Alert dismissed")
    async with recorded("confirm"):
        await page.click("#confirm-button")
    await expect(page.locator("#dialog-result")).to_have_text("Cancelled: item kept")
    async with recorded("prompt"):
        await page.click("#prompt-button")
    await expect(page.locator("#dialog-result")).to_have_text("Hello, Ada!")
    assert [t for t, _ in seen] == ["alert", "confirm", "prompt"]
    s = await state(page, sites)
    assert events(s, "confirm")[-1]["detail"] == {"accepted": False}
    assert events(s, "prompt")[-1]["detail"] == {"value": "Ada"}


async def test_new_tab_and_popup(context: BrowserContext, page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/dynamic/"))
    async with context.expect_page() as info:
        await page.get_by_role("link", name="Open help in a new tab").click()
    tab = await info.value
    await expect(tab.locator("#help-title")).to_have_text("Help centre")
    async with page.expect_popup() as popup_info:
        await page.click("#open-window")
    popup = await popup_info.value
    await expect(popup.locator("#popup-title")).to_have_text("Popup window")
    assert len(context.pages) == 3


async def test_modal_toast_and_hover_menu(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/dynamic/"))
    await page.get_by_role("button", name="Open modal").click()
    dialog = page.get_by_role("dialog", name="Subscribe to our newsletter")
    await expect(dialog).to_be_visible()
    await dialog.get_by_label("Email").fill("m@example.com")
    await dialog.get_by_role("button", name="Subscribe").click()
    await expect(dialog).to_be_hidden()
    await expect(page.locator("#modal-result")).to_have_text("Subscribed: m@example.com")

    await page.click("#show-toast")
    await expect(page.locator(".toast")).to_have_text("Saved successfully (1)")
    await expect(page.locator(".toast")).to_have_count(0, timeout=6000)

    await expect(page.get_by_role("link", name="Phones")).to_be_hidden()
    await page.hover("#menu-trigger")
    await page.get_by_role("link", name="Phones").click()
    await expect(page.locator("#menu-result")).to_have_text("Menu choice: Phones")


async def test_html5_drag_and_drop(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/dynamic/"))
    await page.drag_and_drop("#task-a", "#drop-zone")
    await expect(page.locator("#drop-result")).to_have_text("Dropped: Task A")
    await expect(page.locator("#drop-zone #task-a")).to_have_count(1)
    assert events(await state(page, sites), "drop")[-1]["detail"] == {"item": "Task A"}


async def test_infinite_scroll_loads_more(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/dynamic/"))
    await expect(page.locator(".feed-item")).to_have_count(0)
    await page.locator("#feed-sentinel").scroll_into_view_if_needed()
    await expect(page.locator(".feed-item").nth(19)).to_be_attached()
    await expect(page.locator("#feed-status")).to_have_text(re.compile(r"^\d+ items$"))
    await page.mouse.wheel(0, 5000)
    await expect(page.locator(".feed-item").nth(39)).to_be_attached()
