# ruff: noqa: F811  (the kite fixture is imported into each module)
"""Index targets inside same-origin and cross-origin iframes and open shadow roots."""

from __future__ import annotations

from kite_browser.evals.sites import SitesServer
from tests.browser.action_pages.harness import (
    Kite,
    kite,  # noqa: F401
)


async def test_type_and_click_in_same_origin_iframe(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/frames/"))
    name = await kite.index_of("#inner-name", "inner.html")
    res = await kite.act(action="type", index=name, text="Ada")
    assert res.ok and res.effects.value == "Ada"
    click = await kite.act(action="click", index=await kite.index_of("#inner-submit", "inner.html"))
    assert click.ok and click.method == "mouse"
    frame = next(f for f in kite.page.frames if "inner.html" in f.url)
    assert "Ada" in await frame.locator("#inner-result").inner_text()


async def test_click_in_cross_origin_iframe(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/frames/"))
    idx = await kite.index_of("#cross-button", "cross.html")
    res = await kite.act(action="click", index=idx)
    assert res.ok and res.method == "mouse"
    frame = next(f for f in kite.page.frames if "cross.html" in f.url)
    assert (await frame.locator("#cross-frame-result").inner_text()).strip()


async def test_click_in_a_cross_origin_iframe_below_the_fold(kite: Kite, sites: SitesServer) -> None:
    """The frame's own viewport has its button in view while the top page has the whole frame below the fold
    (variant 2 of the sites puts that section last): the click brings the frame into the top page's view first.
    It used to press at a point below the viewport, where nothing is: "ok", and nothing happened."""
    await kite.goto(sites.url("/frames/"))
    await kite.page.evaluate(
        """() => { const f = document.getElementById('cross-frame'); const s = document.createElement('div');
                   s.style.height = '3000px'; f.parentElement.insertBefore(s, f); }"""
    )
    idx = await kite.index_of("#cross-button", "cross.html")
    res = await kite.act(action="click", index=idx)
    assert res.ok and res.method == "mouse", res
    frame = next(f for f in kite.page.frames if "cross.html" in f.url)
    assert (await frame.locator("#cross-frame-result").inner_text()).strip() == "Clicked 1 time(s)"
    box = await kite.page.locator("#cross-frame").bounding_box()
    assert box is not None and box["y"] < 800  # the frame was scrolled into the top page's view


async def test_shadow_dom_click_and_type(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/frames/"))
    inc = await kite.index_of("#counter-widget >> #increment")
    res = await kite.act(action="click", index=inc)
    assert res.ok and res.method == "mouse"
    assert (await kite.page.locator("#counter-widget >> #count").inner_text()).strip() == "1"
    email = await kite.index_of("#card-widget >> #shadow-email")
    typed = await kite.act(action="type", index=email, text="a@b.co")
    assert typed.ok and typed.effects.value == "a@b.co"
