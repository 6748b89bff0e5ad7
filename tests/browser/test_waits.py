# ruff: noqa: F811  (the kite fixture is imported into each module)
"""Settle behaviour: quick when nothing happens, waits for fetches, DOM bursts and navigations."""

from __future__ import annotations

from kite_browser.evals.sites import SitesServer
from tests.browser.action_pages.harness import (
    Kite,
    kite,  # noqa: F401
)


async def test_settle_returns_quickly_when_nothing_happens(kite: Kite, sites: SitesServer) -> None:
    """Ordering, not timing: a no-op returns before the network-quiet window an action with a fetch must wait.

    Precise settle times per action kind are measured by ``python -m kite_browser.evals.bench.actions``.
    """
    from kite_browser.agent.config import KiteConfig
    from tests.browser.action_pages.harness import make_kite

    quiet_ms = 1000
    cfg = KiteConfig.model_validate({"waits": {"network_quiet_ms": quiet_ms, "settle_cap_ms": 8000}})
    k = make_kite(kite.session, kite.run_dir, cfg)
    await k.goto(sites.url("/dynamic/"))
    await k.page.wait_for_selector("#news-list")  # the first load's fetch is over
    noop = await k.act(action="pressKey", key="Shift")
    busy = await k.act(action="click", selector="#reload-news")
    assert noop.ok and busy.ok
    # The fetch makes the settle wait a full quiet window; nothing happening returns well before it
    # (~35 ms on an idle machine, a few hundred on a loaded one) and far from the cap.
    assert noop.data["settle_ms"] < quiet_ms <= busy.data["settle_ms"] < 8000


async def test_settle_waits_for_delayed_content(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/dynamic/"))
    await kite.page.wait_for_selector("#reload-news")
    res = await kite.act(action="click", selector="#reload-news")
    assert res.ok
    # The news list is fetched after the click; the settle waited for the fetch and the DOM update.
    assert await kite.page.locator("#news-list li").count() > 0
    assert res.effects.added > 0 or res.effects.removed > 0


async def test_settle_follows_a_navigation_started_by_a_click(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/test/links.html"))
    href = await kite.page.locator("a[href^='/']").first.get_attribute("href")
    res = await kite.act(action="click", selector=f"a[href='{href}']")
    assert res.ok and res.effects.navigated
    assert res.effects.url_after and res.effects.url_after.endswith(str(href))
    assert await kite.page.evaluate("document.readyState") == "complete"


async def test_settle_is_capped_by_per_action_override(kite: Kite, sites: SitesServer) -> None:
    from kite_browser.agent.config import KiteConfig
    from tests.browser.action_pages.harness import make_kite

    cfg = KiteConfig.model_validate({"waits": {"per_action": {"executeJS": 300}, "network_stall_ms": 10000}})
    k = make_kite(kite.session, kite.run_dir, cfg)
    await k.goto(sites.url("/test/counter.html"))
    res = await k.act(action="executeJS", code="fetch('/test/hang-resource').catch(() => 0); 1")
    # The 300 ms per-action cap ended the wait, long before the default cap (3 s) or the stall (10 s).
    assert res.ok and 250 <= res.data["settle_ms"] < 2500


async def test_quiet_of_a_loaded_document_waits_for_the_requests_begun_before_it(
    kite: Kite, sites: SitesServer
) -> None:
    """``quiet(fresh=False)`` (what a replay waits for after a last step that opened no document): a fetch
    the page began before the wait, and what the page draws with its answer, are waited for."""
    assert (await kite.act(action="navigate", url=sites.url("/test/counter.html"))).ok
    page = kite.page
    await page.evaluate(
        """() => { fetch('/api/dynamic/items?delay=0.4').then((r) => r.json()).then((d) => {
          const p = document.createElement('p'); p.id = 'got'; p.textContent = 'items ' + d.items.length;
          document.body.append(p); }); }"""
    )
    rep = await kite.ex.settler.quiet(page, fresh=False)
    assert not rep.timed_out, rep
    assert await page.locator("#got").count() == 1, rep
