"""Classes of visible controls the snapshot once missed (issue 15.13): controls inside aria-hidden containers and
controls under transparent overlays are listed; controls that are hidden by style, inert, or under an overlay that
really takes the click (opaque, opacity 0, a listener, a pointer cursor) are not. Clicks reach the ones listed."""

from __future__ import annotations

from playwright.async_api import Page, expect

from kite_browser.agent.browser.observation import Observation
from kite_browser.agent.browser.render import render_observation
from kite_browser.agent.browser.snapshot import Snapshotter, install_listener_tracking
from kite_browser.evals.bench.recall import check_page
from kite_browser.evals.sites import SitesServer
from tests.browser.action_pages.harness import Kite, kite  # noqa: F401


def ids(obs: Observation) -> set[str]:
    return {e.attrs["id"] for e in obs.elements if e.in_viewport and "id" in e.attrs}


ARIA_SHOWN = {
    "menu-home", "menu-deals", "menu-more", "dlg-user", "dlg-pass", "dlg-submit",
    "news-email", "news-freq", "news-go", "aria-self",
}  # fmt: skip
ARIA_GONE = {"gone-display", "gone-visibility", "gone-opacity", "gone-offcanvas", "gone-inert"}
THROUGH = {"li-user", "li-pass", "li-go", "q", "q-go", "pe-button"}
BLOCKED = {"jack-button", "ghost-button", "dismiss-button", "opaque-button", "pointer-button"}


async def test_aria_hidden_is_a_hint_not_a_verdict(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/test/aria-hidden.html"))
    snap = Snapshotter()
    obs = await snap.snapshot(page, include_all=True)
    listed = ids(obs)
    assert ARIA_SHOWN <= listed
    assert not (ARIA_GONE & listed)  # the off-canvas menu is at most counted beside the viewport
    marked = {e.attrs["id"] for e in obs.elements if e.aria_hidden and e.in_viewport and "id" in e.attrs}
    assert marked == ARIA_SHOWN
    text = render_observation(obs)
    assert any(line.endswith('"Sign in" aria-hidden') for line in text.splitlines())
    r = await check_page(page, snap)
    assert r.truth >= len(ARIA_SHOWN) and not r.missing and not r.bad


async def test_transparent_overlays_are_looked_through_and_real_ones_block(
    page: Page, sites: SitesServer
) -> None:
    await install_listener_tracking(page.context)  # as a session does: the overlay's listener is seen
    await page.goto(sites.url("/test/see-through.html"))
    snap = Snapshotter()
    obs = await snap.snapshot(page)
    listed = ids(obs)
    assert THROUGH <= listed
    assert not (BLOCKED & listed)
    r = await check_page(page, snap)  # the independent probe agrees: nothing missed, nothing covered listed
    assert not r.missing and not r.bad
    assert r.truth >= len(THROUGH)


async def test_clicks_pass_through_transparent_overlays(kite: Kite, sites: SitesServer) -> None:  # noqa: F811
    await kite.goto(sites.url("/test/see-through.html"))
    res = await kite.act(action="click", index=await kite.index_of("#li-go"))
    assert res.ok and res.method == "mouse", res
    assert "through a transparent <li>" in res.message
    await expect(kite.page.locator("#result")).to_have_text("Clicked li-go")
    # the overlay is as it was: a person's next click there still lands on the LI
    assert (
        await kite.page.locator("#lis li").first.evaluate("e => getComputedStyle(e).pointerEvents") == "auto"
    )


TABS = """<!doctype html><html><body>
<ul role="tablist"><li role="tab" tabindex="0" id="t1"><a href="#p1" role="presentation" tabindex="-1">Tab #1</a></li>
<li role="tab" tabindex="-1" id="t2"><a href="#p2" role="presentation" tabindex="-1">Tab #2</a></li></ul>
<a href="#buy" id="wrap"><button id="inner" style="width:100%">Buy</button></a>
<div role="button" tabindex="0" id="card" style="width:300px;padding:30px"><a href="#more" id="more">More</a></div>
</body></html>"""


async def test_one_control_is_listed_once(page: Page, pages_server) -> None:  # type: ignore[no-untyped-def]
    await page.goto(pages_server.add("/tabs.html", TABS))
    obs = await Snapshotter().snapshot(page)
    lines = render_observation(obs, with_summary=False).splitlines()
    assert [line for line in lines if "Tab #1" in line] == [f'[{obs.elements[0].index}] tab "Tab #1"']
    assert sum('"Buy"' in line for line in lines) == 1
    # a small link inside a bigger control with the same name is its own target: both stay
    assert {"card", "more"} <= ids(obs)
