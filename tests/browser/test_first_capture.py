"""The first capture after a navigation: a new document has Kite's extractor ready before Kite asks.

The extractor is registered for every new document of a page in Kite's world (agent/browser/world.py); once the
document is parsed and the renderer idle it runs one extraction of its own there (V8 compiles a function on its
first call, so the first capture otherwise paid for compiling the whole extractor), out of the page's reach;
and the world's context in the new document is asked for while the page loads, so the first capture is one
call into the page, not a failed call, a context request and the call again.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import CDPSession, Page

from kite_browser.agent.browser.snapshot import Snapshotter
from kite_browser.agent.browser.world import world_of
from kite_browser.evals.sites import SitesServer

_AFTER_WARM_UP = """() => new Promise((resolve) => requestIdleCallback(
  () => resolve(window.__kiteExtractor ? window.__kiteExtractor.stats() : null), {timeout: 5000}))"""
"""Kite's world, after the idle callbacks queued before this one (the warm-up's among them): the stats."""


async def test_a_new_document_warms_the_extractor_in_kites_world_only(page: Page, sites: SitesServer) -> None:
    snap = Snapshotter()
    await page.goto(sites.url("/test/rerender.html"))
    before = await snap.snapshot(page)  # Kite's world is set up for the page's next documents
    await page.goto(sites.url("/test/rerender.html"))
    stats = await world_of(page).call(page.main_frame, _AFTER_WARM_UP)
    assert stats is not None and stats["next"] > 40, stats  # ran once: ids for the page's 41 controls
    seen = await page.evaluate(
        "() => [typeof window.__kiteExtractor, Object.getOwnPropertyNames(window).filter((n) => /kite/i.test(n))]"
    )
    assert seen == ["undefined", []]  # nothing of it in the page's own world
    obs = await snap.snapshot(page)  # lists what a capture without the warm-up listed
    assert [(e.kind, e.name) for e in obs.elements] == [(e.kind, e.name) for e in before.elements]


async def test_the_first_capture_after_a_navigation_is_one_call(
    page: Page, sites: SitesServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    snap = Snapshotter()
    await page.goto(sites.url("/test/rerender.html"))
    await snap.snapshot(page)
    await page.goto(sites.url("/test/rerender.html"))
    sent: list[str] = []
    real = CDPSession.send

    async def send(self: CDPSession, method: str, params: dict[str, Any] | None = None) -> Any:
        sent.append(method)
        return await real(self, method, params)

    monkeypatch.setattr(CDPSession, "send", send)
    obs = await snap.snapshot(page)
    assert len(obs.elements) == 41
    assert sent == ["Runtime.callFunctionOn"]  # was: a call failing on the old context, a new one, the call


async def test_frames_that_left_the_page_take_their_contexts_along(page: Page, sites: SitesServer) -> None:
    snap = Snapshotter()
    await page.goto(sites.url("/test/rerender.html"))
    await snap.snapshot(page)  # Kite's world follows the page's frames from now on
    for n in range(20):  # an ad slot whose iframe is replaced again and again
        await page.evaluate(
            """(n) => new Promise((resolve) => {
              document.querySelectorAll("iframe").forEach((f) => f.remove());
              const f = document.createElement("iframe");
              f.srcdoc = `<button>Ad ${n}</button>`;
              f.onload = resolve;
              document.body.append(f);
            })""",
            n,
        )
    obs = await snap.snapshot(page)
    assert "Ad 19" in [e.name for e in obs.elements]
    assert world_of(page).kept() <= 3, world_of(page).kept()  # the top frame and the live iframe: was 21
