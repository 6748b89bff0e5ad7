"""A subset of the scenario table against real snapshots of the bundled sites (no hand-made observations)."""

from __future__ import annotations

import pytest
from playwright.async_api import Page

from kite_browser.agent.browser.actions import parse_action
from kite_browser.agent.browser.snapshot import Snapshotter
from kite_browser.safety.policy import ConfirmLevel, SafetyPolicy


def _index(obs, element_id: str) -> int:  # type: ignore[no-untyped-def]
    return next(e.index for e in obs.elements if e.attrs.get("id") == element_id)


@pytest.mark.parametrize("prefix", ["", "/zh"])
async def test_login_and_shop_pages(page: Page, sites, policy: SafetyPolicy, prefix: str) -> None:  # type: ignore[no-untyped-def]
    snap = Snapshotter()
    await page.goto(sites.url(f"{prefix}/account/login"))
    obs = await snap.snapshot(page)
    pw, email, login = _index(obs, "password"), _index(obs, "email"), _index(obs, "login")
    cases = [
        ({"action": "type", "index": pw, "text": "hunter2"}, "confirm"),
        ({"action": "type", "index": pw, "text": "<secret>password</secret>"}, "auto"),
        ({"action": "type", "index": email, "text": "ada@example.com"}, "auto"),
        ({"action": "click", "index": login}, "auto"),
        ({"action": "executeJS", "code": "1"}, "confirm"),
    ]
    await page.goto(sites.url(f"{prefix}/shop/"))
    home = await snap.snapshot(page)
    cases_home = [
        ({"action": "click", "index": _index(home, "search-button")}, "auto"),
        ({"action": "navigate", "url": "https://evil.test/"}, "block"),
    ]
    for action, expected in cases:
        assert policy.evaluate(parse_action(action), obs).level == ConfirmLevel(expected), action
    for action, expected in cases_home:
        assert policy.evaluate(parse_action(action), home).level == ConfirmLevel(expected), action
