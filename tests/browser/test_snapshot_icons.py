"""Buttons and links that show only an icon were listed as a bare `button`: nothing said which was the trash
can and which the cart. A tooltip attribute names them (a person sees it on hover); else the icon does: the
sprite symbol, the icon font class, the image file or a test id, without the icon set's prefix."""

from __future__ import annotations

from playwright.async_api import Page

from kite_browser.agent.browser.snapshot import Snapshotter
from kite_browser.evals.bench.recall import check_page
from kite_browser.evals.sites import SitesServer
from tests.browser.test_snapshot_custom_controls import by_id

ICONS = {
    "font": "button icon=trash",  # fa fa-solid fa-trash: the set's words and prefix left out
    "sprite": "button icon=cart",  # <use href="#icon-cart">
    "sprite-x": "button icon=heart",  # xlink:href, and an icon rather than a generated class
    "img": "button icon=search-icon",  # the image file's name
    "testid": "button icon=close-modal",
    "tooltip": 'button "Share this"',
    "bs": 'button "Edit profile"',  # a Bootstrap tooltip moves title= here
    "bell": "link icon=bell",
    "ligature": 'button "delete"',  # an icon font ligature is text: the name, as before
    "svg-title": 'button "Download"',
    "plain": "button class=menu-toggle",  # no icon: the class words, as before
}


async def test_icon_only_buttons_say_what_their_icon_is(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/test/icon-buttons.html"))
    snap = Snapshotter()
    lines = by_id(await snap.snapshot(page))
    assert {k: lines.get(k) for k in ICONS} == ICONS
    r = await check_page(page, snap)
    assert not r.missing and not r.bad
