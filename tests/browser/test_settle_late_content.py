# ruff: noqa: F811  (the kite fixture is imported into each module)
"""Content a page draws late is in the snapshot right after ``navigate``, with the settle observer watching the
document from its first line (``waits.navigation_settle: observer``), as it was with the network-quiet window:
a 300 ms timer, timer chains, an IntersectionObserver's lazy list, animation frames, a Web Worker's messages,
chained fetches, fetches the load event starts, a pushState router; and an animation whose frames come
slowly, as on a loaded machine (the DOM-quiet wait counts drawn frames, not only time).
``python -m kite_browser.evals.bench.settle_compare`` measures both modes on these pages, the bundled sites and the saved
corpus.

And the observer changes nothing a page can check: ``fetch``/``setTimeout``/``XMLHttpRequest``/``Worker``
still look native, ``Response.clone()``, an aborted fetch, a streamed body, a synchronous XHR, timers' ``this``
and arguments, worker subclasses and its globals (none enumerable) behave as without it.

No timed assertions: the pages' own delays are what the settle must wait for.
"""

from __future__ import annotations

import json

import pytest
from playwright.async_api import Page

from kite_browser.agent.config import KiteConfig, WaitConfig
from kite_browser.evals.sites import SitesServer
from tests.browser.action_pages.harness import (
    Kite,
    kite,  # noqa: F401
    make_kite,
)

LATE = {
    "settle-timer-300.html": {"Drawn at 300 ms"},
    "settle-timer-chain.html": {"End of 200 ms chain", "Step 1 of 300 ms chain"},
    "settle-lazy-list.html": {"Seen at once", "Item: Kite tip: use the search box", "Item: Support 24/7"},
    "settle-raf.html": {"After the animation"},
    "settle-worker.html": {"Worker says hello", "Worker after 400 ms"},
    "settle-fetch-chain.html": {"After three fetches: Kite tip: use the search box"},
    "settle-load-fetch.html": {"Loaded by the load handler", "Loaded 100 ms after load"},
    "settle-spa.html": {"Home view", "Tip: Kite tip: use the search box", "Tip: Free shipping over $50"},
}


@pytest.mark.parametrize("name", sorted(LATE))
async def test_late_content_is_in_the_snapshot_after_navigate(
    kite: Kite, sites: SitesServer, name: str
) -> None:
    res = await kite.act(action="navigate", url=sites.url(f"/test/{name}"))
    assert res.ok and res.effects.navigated, res
    obs = await kite.snap.snapshot(kite.page)
    names = {e.name for e in obs.elements}
    assert LATE[name] <= names, (res.data, sorted(names))


async def test_slow_frames_do_not_end_the_settle_early(kite: Kite, sites: SitesServer) -> None:
    # A loaded machine, made deterministic: every frame of the animation draws one step, and between two
    # frames the main thread is busy for 250 ms (longer than the stretched DOM-quiet window). Time without a
    # mutation is not quiet until two frames were drawn without one. The cap is wide: only the page's own
    # pace may end this settle.
    config = KiteConfig(waits=WaitConfig(per_action={"navigate": 15000}))
    slow = make_kite(kite.session, kite.run_dir, config)
    res = await slow.act(action="navigate", url=sites.url("/test/settle-slow-frames.html"))
    assert res.ok and res.effects.navigated, res
    obs = await slow.snap.snapshot(slow.page)
    assert "After the slow frames" in {e.name for e in obs.elements}, res.data


async def _checks(page: Page) -> dict[str, object]:
    await page.locator("text=Checks done").wait_for()
    return dict(json.loads(await page.text_content("#result") or "{}"))


async def test_the_observer_changes_nothing_a_page_can_check(
    kite: Kite, page: Page, sites: SitesServer
) -> None:
    url = sites.url("/test/natives.html")
    res = await kite.act(action="navigate", url=url)  # watched from its first line, then marked
    assert res.ok, res
    await kite.act(action="navigate", url=url)  # and once more: the init script and the mark's install
    watched = await _checks(kite.page)
    await page.goto(url)  # a context Kite never touched
    plain = await _checks(page)
    assert all(v is True for v in plain.values()), plain  # the page's checks are right without Kite
    assert watched == plain
    assert await kite.page.evaluate("typeof window.__kiteSettle") == "object"  # the observer was there
