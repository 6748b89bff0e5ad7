"""Controls under a sticky header or a fixed cookie bar vanished from every view: wholly inside the viewport
but not hittable, they were dropped as covered. A scroll shows them, so they are counted (and, with
includeOffscreen, listed) above or below; a full-page mask still covers what is under it."""

from __future__ import annotations

from playwright.async_api import expect

from kite_browser.agent.browser.observation import Observation
from kite_browser.evals.sites import SitesServer
from tests.browser.action_pages.harness import Kite, kite  # noqa: F401


def where(obs: Observation) -> dict[str, str]:
    out = {}
    for e in obs.elements:
        if "id" in e.attrs:
            out[e.attrs["id"]] = "in" if e.in_viewport else ("above" if e.rect.y < 400 else "below")
    return out


async def test_controls_under_bars_are_above_or_below_not_gone(kite: Kite, sites: SitesServer) -> None:  # noqa: F811
    # scrolled so that two controls sit under the sticky header
    await kite.goto(sites.url("/test/sticky.html?scroll=166"))
    obs = await kite.snap.snapshot(kite.page, include_all=True)
    seen = where(obs)
    assert seen["under-top"] == seen["under-top-link"] == "above"
    assert seen["middle"] == seen["accept"] == seen["bar-cart"] == "in"
    assert obs.summary.above == 2
    # scrolled so that a button sits under the cookie bar at the bottom
    await kite.goto(sites.url("/test/sticky.html?scroll=253"))
    obs = await kite.snap.snapshot(kite.page, include_all=True)
    assert where(obs)["under-bottom"] == "below"
    # a click on a control under the bar reaches it (the click scrolls it out from under the bar)
    res = await kite.act(
        action="click", index=next(e.index for e in obs.elements if e.attrs.get("id") == "under-bottom")
    )
    assert res.ok, res
    await expect(kite.page).to_have_title("clicked under-bottom")
    # under a full-page mask nothing in view is usable: covered, neither listed nor counted
    await kite.goto(sites.url("/test/sticky.html?scroll=166&mask=1"))
    obs = await kite.snap.snapshot(kite.page, include_all=True)
    assert set(where(obs)) == {"under-bottom"} and obs.summary.above == 0
