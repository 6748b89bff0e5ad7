"""Accounts through real typing and clicks: login, persistence, registration, settings, delete."""

from __future__ import annotations

import time

from playwright.async_api import BrowserContext, Page, expect

from kite_browser.evals.sites import SitesServer
from kite_browser.evals.sites.state import DEMO_EMAIL, DEMO_PASSWORD
from tests.sites.helpers import state


async def login(
    page: Page, sites: SitesServer, email: str = DEMO_EMAIL, password: str = DEMO_PASSWORD
) -> None:
    await page.goto(sites.url("/account/login"))
    await page.get_by_label("Email").fill(email)
    await page.get_by_label("Password").fill(password)
    await page.get_by_role("button", name="Log in").click()


async def test_wrong_password_is_refused(page: Page, sites: SitesServer) -> None:
    await login(page, sites, password="wrong")
    await expect(page.locator("#login-error")).to_have_text("Invalid email or password.")
    s = await state(page, sites)
    assert s["user"] is None
    assert s["login_attempts"][-1] == {**s["login_attempts"][-1], "email": DEMO_EMAIL, "success": False}


async def test_login_persists_in_a_new_page(context: BrowserContext, page: Page, sites: SitesServer) -> None:
    await login(page, sites)
    await expect(page.locator("#user-email")).to_have_text(DEMO_EMAIL)
    session = next(c for c in await context.cookies() if c["name"] == "kite_session")
    assert session["expires"] > time.time() + 7 * 24 * 3600  # persistent, not a session cookie
    sid = next(c for c in await context.cookies() if c["name"] == "kite_sid")
    assert sid["expires"] > time.time() + 300 * 24 * 3600
    await page.close()

    other = await context.new_page()
    await other.goto(sites.url("/account/"))
    await expect(other.locator("#user-email")).to_have_text(DEMO_EMAIL)
    assert sites.state_for(sid["value"])["user"] == DEMO_EMAIL

    await other.get_by_role("button", name="Log out").click()
    await expect(other).to_have_url(sites.url("/account/login"))
    await other.goto(sites.url("/account/settings"))
    await expect(other).to_have_url(sites.url("/account/login"))


async def test_registration_then_settings(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/account/register"))
    await page.get_by_label("Full name").fill("Grace Hopper")
    await page.get_by_label("Email").fill("grace@example.com")
    await page.get_by_label("Password", exact=True).fill("cobol1959")
    await page.get_by_label("Confirm password").fill("cobol1960")
    await page.get_by_role("button", name="Create account").click()
    await expect(page.locator("#errors")).to_contain_text("Passwords do not match.")
    await expect(page.locator("#errors")).to_contain_text("You must agree to the terms of service.")

    await page.get_by_label("Password", exact=True).fill("cobol1959")
    await page.get_by_label("Confirm password").fill("cobol1959")
    await page.get_by_label("I agree to the terms of service").check()
    await page.get_by_role("button", name="Create account").click()
    await expect(page.locator("#welcome-message")).to_be_visible()
    await expect(page.locator("#user-email")).to_have_text("grace@example.com")

    await page.get_by_role("link", name="Settings").click()
    await page.get_by_label("Display name").fill("Amazing Grace")
    await page.get_by_label("Send me the newsletter").check()
    await page.get_by_role("button", name="Save changes").click()
    await expect(page.locator("#saved-message")).to_have_text("Settings saved.")
    await expect(page.get_by_label("Send me the newsletter")).to_be_checked()

    s = await state(page, sites)
    assert s["user"] == "grace@example.com"
    assert s["settings"]["grace@example.com"] == {
        "display_name": "Amazing Grace",
        "newsletter": True,
        "language": "en",
    }
    assert "password" not in s["accounts"]["grace@example.com"]


async def test_delete_account_needs_final_confirmation(page: Page, sites: SitesServer) -> None:
    await login(page, sites)
    await page.get_by_role("link", name="Delete account").click()
    await page.get_by_role("link", name="Delete my account").click()
    await expect(page.locator("#delete-warning")).to_have_text("This cannot be undone.")
    await page.get_by_label("Type your email address to confirm").fill("someone@else.test")
    await page.get_by_role("button", name="Permanently delete").click()
    await expect(page.locator("#confirm-error")).to_be_visible()
    assert DEMO_EMAIL in (await state(page, sites))["accounts"]

    await page.get_by_label("Type your email address to confirm").fill(DEMO_EMAIL)
    await page.get_by_role("button", name="Permanently delete").click()
    await expect(page.locator("#deleted-message")).to_have_text("Your account has been deleted.")
    s = await state(page, sites)
    assert DEMO_EMAIL not in s["accounts"]
    assert s["deleted_accounts"][0]["email"] == DEMO_EMAIL
    await login(page, sites)
    await expect(page.locator("#login-error")).to_be_visible()


async def test_chinese_account_pages(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/zh/account/login"))
    await page.get_by_label("电子邮箱").fill(DEMO_EMAIL)
    await page.get_by_label("密码").fill(DEMO_PASSWORD)
    await page.get_by_role("button", name="登录").click()
    await expect(page.locator("#user-email")).to_have_text(DEMO_EMAIL)
    await page.get_by_role("link", name="设置").click()
    await page.get_by_label("订阅新闻邮件").check()
    await page.get_by_role("button", name="保存").click()
    await expect(page.locator("#saved-message")).to_have_text("设置已保存。")
    await page.goto(sites.url("/zh/account/delete"))
    await page.get_by_role("link", name="删除我的账户").click()
    await expect(page.get_by_role("heading", name="删除账户")).to_be_visible()
    await expect(page.locator("#delete-warning")).to_contain_text("不可恢复")
    await page.get_by_label("请输入您的邮箱地址以确认").fill(DEMO_EMAIL)
    await page.get_by_role("button", name="永久删除").click()
    await expect(page.locator("#deleted-message")).to_have_text("您的账户已被删除。")
    s = await state(page, sites)
    assert s["settings"] == {}
    assert s["deleted_accounts"][0]["email"] == DEMO_EMAIL


async def test_chinese_register_button(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/zh/account/register"))
    await expect(page.get_by_role("button", name="注册")).to_be_visible()
