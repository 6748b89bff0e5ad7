"""A snapshot's cost must not depend on what ran before it: what the snapshot engine keeps between snapshots
(the extractor's id map in the page, the index maps in Python) stays bounded by the page as it is now, however
often it was observed. A page that draws its list again between snapshots (a ticker, a re-keyed list) left one
entry per element ever seen in both before: 200 snapshots of 40 fresh controls each kept ~8,000."""

from __future__ import annotations

import pytest
from playwright.async_api import Page

from kite_browser.agent.browser.extractor_call import call_extractor
from kite_browser.agent.browser.snapshot import KEEP_GONE, Snapshotter
from kite_browser.evals.sites import SitesServer

SNAPSHOTS = 200


@pytest.mark.timeout(600)  # ~5 s on a quiet 2-core machine, 200 s at load 15
async def test_200_snapshots_of_a_redrawn_page_keep_bounded_state(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/test/rerender.html"))
    snap = Snapshotter()
    first = await snap.snapshot(page)
    live = len(first.elements)
    assert live == 41  # the refresh button, and 20 links and 20 buttons drawn by render()
    for _ in range(SNAPSHOTS - 1):
        await page.evaluate("render()")
        obs = await snap.snapshot(page)
        assert len(obs.elements) == live
    kept = await call_extractor(page.main_frame, {"fn": "stats"})
    assert kept["next"] > SNAPSHOTS * 40  # every drawing got fresh ids: the page did churn
    assert kept["refs"] <= 1024, kept  # was ~8,000: one per element ever seen
    sizes = snap.kept(page)
    assert sizes["by_key"] <= 1024 and sizes["by_index"] <= 1024, sizes
    assert sizes["known"] <= 1024 + KEEP_GONE, sizes
    assert sizes["docs"] == 1, sizes
    # The live elements keep working: the newest indexes resolve, and an old one is stale, not a wrong click.
    newest = obs.elements[-1].index
    assert (await snap.resolve(page, newest)).element.index == newest
    stale = first.elements[-1].index
    try:
        await snap.resolve(page, stale)
    except Exception as exc:
        assert getattr(exc, "type", "") == "stale_element"
    else:
        raise AssertionError("an index of a replaced element resolved")


async def test_a_replaced_document_takes_its_indexes_along(page: Page, sites: SitesServer) -> None:
    snap = Snapshotter()
    for _ in range(5):
        await page.goto(sites.url("/test/rerender.html"))  # a new document each time (new token)
        await snap.snapshot(page)
    sizes = snap.kept(page)
    assert sizes["docs"] == 1 and sizes["by_index"] == 41, sizes  # was 5 documents' worth: 205
