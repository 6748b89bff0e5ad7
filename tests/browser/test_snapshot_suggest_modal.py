"""Classes of controls the snapshot mislisted (recall on untuned pages, round 3): the suggestions of an input's
<datalist> (a model could not know the expected values) and modal dialogs inside shadow roots or marked
role=dialog aria-modal=true (the inert page behind them was listed as usable)."""

from __future__ import annotations

from playwright.async_api import Page

from kite_browser.agent.browser.observation import Observation
from kite_browser.agent.browser.render import render_elements
from kite_browser.agent.browser.snapshot import Snapshotter
from kite_browser.evals.sites import SitesServer
from tests.browser.test_snapshot_custom_controls import by_id

SUGGESTED = {
    "browser": 'input "Browser" options=Chrome|Firefox|Safari',
    "country": 'input "Country" placeholder="Type a country" '
    "options=Austria|Belgium|Bulgaria|Croatia|Cyprus|Czechia|Denmark|Estonia +22",
    "currency": 'input "Currency" options="EUR (Euro)|USD (US dollar)|JPY"',  # a disabled option is not offered
    "color": 'input "Color" type=color value=#000000 options=#ff0000|#00ff00',
    "nolist": 'input "Broken list"',
}


async def test_datalist_suggestions_are_shown_capped(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/test/datalist.html"))
    obs = await Snapshotter().snapshot(page)
    assert by_id(obs) == SUGGESTED
    country = next(e for e in obs.elements if e.attrs.get("id") == "country")
    assert len(country.options or []) == 8 and country.more_options == 22
    # under a tight token budget the list shrinks to four suggestions before anything else is cut
    lean = render_elements(obs.elements, budget_tokens=80)
    assert "options=Austria|Belgium|Bulgaria|Croatia +26" in lean


def listed(obs: Observation) -> set[str]:
    return {e.attrs.get("id") or e.name for e in obs.elements}


async def test_a_modal_dialog_in_a_shadow_root_makes_the_page_inert(page: Page, sites: SitesServer) -> None:
    for kind in ("native", "aria"):
        await page.goto(sites.url(f"/test/modal-shadow.html?kind={kind}"))
        obs = await Snapshotter().snapshot(page, include_all=True)
        assert listed(obs) == {"who", "ok"}, kind  # not the page behind, the iframe or the link far below
        assert obs.summary.below == 0 and obs.summary.above == 0, kind
        counts = obs.summary.counts
        assert (counts.buttons, counts.inputs, counts.links) == (1, 1, 0), kind
    # a hidden aria-modal dialog or a dialog opened with show() leaves the page usable
    for kind in ("hidden", "modeless"):
        await page.goto(sites.url(f"/test/modal-shadow.html?kind={kind}"))
        obs = await Snapshotter().snapshot(page, include_all=True)
        assert {"behind", "behind-link", "far", "In frame"} <= listed(obs), kind


SELECTS = {
    "sort": 'select "Sort by" value=Featured options="Featured|Price: low to high|Price: high to low"',
    # the first eight choices and how many more; the selected one is the value
    "year": 'select "Year" value=2020 options=2000|2001|2002|2003|2004|2005|2006|2007 +22',
    # disabled choices, empty ones and whitespace are not offered; an optgroup's choices are
    "size": 'select "Size" value="Choose a size" options=Small|Large|xl',
    "only": 'select "Only" value=One',  # a single choice is no choice: nothing to add
    "toppings": 'select "Toppings" value=Cheese options=Cheese|Olives',
}


async def test_a_selects_choices_are_shown_capped(page: Page, sites: SitesServer) -> None:
    """The demo's first step (a recorded run at 0389f22): the 1.5B model chose "Sort by" = "Featured", the value
    it could see, because the line did not show the choices; it also guessed "Blue" for "Colour"."""
    await page.goto(sites.url("/test/selects.html"))
    obs = await Snapshotter().snapshot(page)
    assert by_id(obs) == SELECTS
    lean = render_elements(obs.elements, budget_tokens=110)
    assert "options=2000|2001|2002|2003 +26" in lean
