"""Controls scrolled out of sight inside a scrollable box (overflow auto, no tabindex on the box) vanished from
every view when the box sat inside the viewport: not hittable, wholly in view, dropped as covered. A scroll of
the box shows them, so they are counted below (listed by includeOffscreen) and a click scrolls them into view
(a textarea sits where they would be: without the scroll the click was refused as covered).
Content clipped by overflow hidden (a collapsed menu) or sideways (a carousel's next slide) stays out."""

from __future__ import annotations

from playwright.async_api import expect

from kite_browser.evals.sites import SitesServer
from tests.browser.action_pages.harness import Kite, kite  # noqa: F401


async def test_controls_scrolled_out_inside_a_box_are_below(kite: Kite, sites: SitesServer) -> None:  # noqa: F811
    await kite.goto(sites.url("/test/scroll-box.html"))
    obs = await kite.snap.snapshot(kite.page, include_all=True)
    where = {e.attrs["id"]: e.in_viewport for e in obs.elements if "id" in e.attrs}
    picks = {k: v for k, v in where.items() if k.startswith("pick-")}
    assert set(picks) == {f"pick-{i}" for i in range(1, 9)}
    shown = {k for k, v in picks.items() if v}
    assert shown == {"pick-1", "pick-2", "pick-3"}
    assert obs.summary.below == 5 and obs.summary.above == 0
    assert "menu-a" not in where and "slide-2" not in where  # hidden until opened or slid to
    assert where["slide-1"] and where["menu-toggle"]
    res = await kite.act(
        action="click", index=next(e.index for e in obs.elements if e.attrs.get("id") == "pick-7")
    )
    assert res.ok, res
    await expect(kite.page.locator("#result")).to_have_text("picked 7")
