"""The forms page: every control filled through real input, the submission stored in state."""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import Page, expect

from kite_browser.evals.sites import SitesServer
from tests.sites.helpers import state


async def test_every_control_is_submitted(page: Page, sites: SitesServer, tmp_path: Path) -> None:
    upload = tmp_path / "cv.txt"
    upload.write_text("Curriculum vitae of Jane")
    await page.goto(sites.url("/forms/"))
    await page.get_by_label("Full name").fill("Jane Doe")
    await page.get_by_label("Email", exact=True).fill("jane@example.com")
    await page.get_by_label("Password", exact=True).fill("s3cret")
    await page.get_by_label("Age").fill("42")
    await page.get_by_label("Birthday").fill("1983-04-05")
    slider = page.locator("#satisfaction")
    await slider.focus()
    for _ in range(3):
        await page.keyboard.press("ArrowRight")
    await expect(page.locator("#satisfaction-value")).to_have_text("8")
    await page.get_by_label("Country").select_option(label="Japan")
    await page.get_by_label("Interests (choose several)").select_option(["reading", "travel"])
    await page.get_by_label("Subscribe to updates").check()
    await page.get_by_label("By phone").check()
    await page.get_by_role("combobox", name="Favourite fruit").click()
    await expect(page.get_by_role("listbox", name="Favourite fruit")).to_be_visible()
    await page.get_by_role("option", name="Mango").click()
    await expect(page.locator("#fruit-combobox")).to_have_text("Mango")
    await page.get_by_label("Comments").fill("Line one\nLine two")
    await page.locator("#bio-editor").click()
    await page.keyboard.type("I like kites.")
    await page.get_by_label("Avatar / attachment").set_input_files(upload)
    await page.get_by_role("button", name="Submit").click()
    await expect(page.locator("#submit-status")).to_contain_text("received")
    await expect(page.locator("#result")).to_contain_text('"fruit": "mango"')

    sub = (await state(page, sites))["form_submissions"][-1]
    assert sub["full_name"] == "Jane Doe"
    assert sub["email"] == "jane@example.com"
    assert sub["password"] == "s3cret"
    assert sub["age"] == "42"
    assert sub["birthday"] == "1983-04-05"
    assert sub["satisfaction"] == "8"
    assert sub["country"] == "jp"
    assert sub["interests"] == ["reading", "travel"]
    assert sub["subscribe"] is True and sub["terms"] is False
    assert sub["contact"] == "phone"
    assert sub["fruit"] == "mango"
    assert sub["comments"] == "Line one\nLine two"
    assert sub["bio"] == "I like kites."
    assert sub["file"]["name"] == "cv.txt"
    assert sub["file"]["preview"] == "Curriculum vitae of Jane"


async def test_custom_combobox_keyboard(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/forms/"))
    await page.locator("#fruit-combobox").focus()
    await page.keyboard.press("ArrowDown")
    await page.keyboard.press("ArrowDown")
    await page.keyboard.press("Enter")
    await expect(page.locator("#fruit-combobox")).to_have_text("Banana")
    await expect(page.locator("#fruit-listbox")).to_be_hidden()
    assert await page.locator("#fruit").input_value() == "banana"
