"""Targets the engine once missed: drag handles, elements straddling a viewport edge, and elements whose only
sign of interactivity is a listener added by script (tracked by listeners.js)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.async_api import BrowserContext, Page

from kite_browser.agent.browser.extractor_call import call_extractor
from kite_browser.agent.browser.observation import Observation
from kite_browser.agent.browser.render import render_observation
from kite_browser.agent.browser.session import BrowserSession
from kite_browser.agent.browser.snapshot import Snapshotter, install_listener_tracking
from kite_browser.agent.browser.world import world_of
from kite_browser.evals.sites import SitesServer
from tests.browser.pages.server import serve


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with serve() as urls:
        yield urls[0]


def ids(obs: Observation, *, in_view: bool | None = None) -> set[str]:
    return {
        e.attrs["id"]
        for e in obs.elements
        if "id" in e.attrs and (in_view is None or e.in_viewport == in_view)
    }


def names(obs: Observation) -> list[str]:
    return [e.name for e in obs.elements]


async def test_draggable_and_grab_cursor_elements_are_listed(page: Page, base: str) -> None:
    await page.goto(f"{base}/drag.html")
    obs = await Snapshotter().snapshot(page)
    assert ids(obs) == {"native", "grab", "grabbing", "move"}
    assert names(obs).count("Grab handle") == 1  # a cursor run is one line, not one per child


async def test_bundled_drag_sources_and_sortable_rows(page: Page, sites: SitesServer) -> None:
    snap = Snapshotter()
    await page.goto(sites.url("/dynamic/"))
    obs = await snap.snapshot(page, include_all=True)
    assert {"task-a", "task-b"} <= ids(obs)
    assert 'span "Task A"' in render_observation(obs, include_offscreen=True)
    await page.goto(sites.url("/test/sortable.html"))
    obs = await snap.snapshot(page)
    rows = [e for e in obs.elements if e.tag == "li"]
    assert [e.name for e in rows] == ["Alpha", "Bravo", "Charlie", "Delta", "Echo"]
    assert all(e.in_viewport for e in rows) and not any(e.tag == "ul" for e in obs.elements)


async def test_shop_links_on_the_bottom_edge_are_listed(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/shop/"))
    snap = Snapshotter()
    obs = await snap.snapshot(page)
    straddling = ["Blue Lined Notebook", "Red Pocket Notebook", "White Desk Lamp", "Yellow Reading Lamp"]
    visible = {e.name for e in obs.elements}
    assert set(straddling) <= visible
    everything = await snap.snapshot(page, include_all=True)
    offscreen = [e for e in everything.elements if not e.in_viewport]
    assert len(offscreen) == obs.summary.below == everything.summary.below
    products = await page.locator("a.product-link").count()
    listed = visible | {e.name for e in offscreen}
    assert sum(e.href is not None and "/shop/product/" in e.href for e in everything.elements) == products
    assert {e.name for e in everything.elements if e.href and "/shop/product/" in e.href} <= listed


async def test_partly_visible_is_listed_and_nothing_vanishes(page: Page, base: str) -> None:
    await page.goto(f"{base}/edges.html")
    snap = Snapshotter()
    obs = await snap.snapshot(page)
    assert ids(obs) == {"sliver", "half", "top"}  # partly visible: in the viewport
    everything = await snap.snapshot(page, include_all=True)
    assert ids(everything, in_view=False) == {"under", "covered-edge", "covered-inside"}
    assert obs.summary.below == 3
    await page.evaluate(
        "() => { document.getElementById('cover').style.display = 'block'; scrollTo(0, 1000); }"
    )
    covered = await snap.snapshot(page, include_all=True)
    # covered where it shows but reaching past the edge: below; covered inside the viewport by a bar along the
    # bottom edge (a cookie bar): below too, a scroll shows it (test_snapshot_bars: a full-page mask still hides)
    assert ids(covered, in_view=True) == {"top"}
    assert ids(covered, in_view=False) == {"sliver", "half", "under", "covered-edge", "covered-inside"}
    assert covered.summary.above == 3 and covered.summary.below == 2


async def test_script_listeners_make_targets(context: BrowserContext, base: str) -> None:
    await install_listener_tracking(context)
    page = await context.new_page()
    await page.goto(f"{base}/listeners.html")
    snap = Snapshotter()
    obs = await snap.snapshot(page)
    found = ids(obs)
    assert {"js-card", "prop-card", "icon", "zone", "folder", "wrapped", "inner"} <= found
    assert not found & {"plain", "wrapped-label", "rows", "app", "file1", "file2"}
    assert names(obs).count("Save draft") == 1  # a listener inside a button: still one line
    rows = [e.name for e in obs.elements if e.tag == "li" and "id" not in e.attrs]
    assert rows == ["Row one", "Row two", "Row three"]  # delegation from the <ul> to its rows
    text = render_observation(obs)
    assert 'li "Docs"' in text  # a collapsed folder is not named after its hidden files
    assert "span class=star-icon" in text and 'div "Inbox"' in text
    await page.click("#folder > span")
    opened = await snap.snapshot(page)
    assert {"folder", "file1", "file2"} <= ids(opened)
    assert [e.name for e in opened.elements if e.attrs.get("id", "").startswith("file")] == ["Budget", "Plan"]


async def test_extractor_tracks_listeners_added_after_it_first_ran(page: Page, base: str) -> None:
    await page.goto(f"{base}/drag.html")  # loaded before any tracking was installed
    snap = Snapshotter()
    assert "static" not in ids(await snap.snapshot(page))
    await page.evaluate("() => document.getElementById('static').addEventListener('click', () => {})")
    assert "static" in ids(await snap.snapshot(page))
    await page.goto(f"{base}/listeners.html")  # the Snapshotter installed the init script on its context
    assert "js-card" in ids(await snap.snapshot(page))


async def test_browser_session_contexts_track_listeners(browser_session: BrowserSession, base: str) -> None:
    if not browser_session.is_alive:
        await browser_session.restart()
    ctx = await browser_session.new_context()
    try:
        await ctx.page.goto(f"{base}/listeners.html")
        # the listeners were added at load, before the extractor ever ran: tracked by the context's init
        # script, and handed to Kite's world when it asks
        await call_extractor(ctx.page.main_frame, {"fn": "token"})
        tracked = "(id) => { window.__kiteListened.flush(); return window.__kiteListened.has(document.getElementById(id)); }"
        world = world_of(ctx.page)
        assert await world.call(ctx.page.main_frame, tracked, "js-card") is True
        assert await world.call(ctx.page.main_frame, tracked, "plain") is False
        assert (
            await ctx.page.evaluate("Object.getOwnPropertyNames(window).filter((n) => /kite/i.test(n))") == []
        )
    finally:
        await ctx.close()
