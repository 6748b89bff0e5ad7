"""Classes of controls a person sees and uses that the snapshot missed or mislisted (issue: recall on untuned
pages): labels standing in for visually hidden checkboxes, radios, switches and file inputs; links drawn in SVG
and image-map areas; controls behind a modal dialog (inert, not listed); all the choices of a multiple select."""

from __future__ import annotations

from playwright.async_api import Page, expect

from kite_browser.agent.browser.observation import Observation
from kite_browser.agent.browser.render import render_observation
from kite_browser.agent.browser.snapshot import Snapshotter
from kite_browser.evals.bench.recall import check_page
from kite_browser.evals.sites import SitesServer
from tests.browser.action_pages.harness import Kite, kite  # noqa: F401


def by_id(obs: Observation) -> dict[str, str]:
    """id attribute -> the element's rendered line (without the index)."""
    lines = render_observation(obs, with_summary=False).splitlines()
    out = {}
    for e in obs.elements:
        line = next(x for x in lines if x.lstrip("*").startswith(f"[{e.index}] "))
        out[e.attrs.get("id", "")] = line.split("] ", 1)[1]
    return out


CUSTOM = {
    "l-sr": 'checkbox "Remember me" checked',
    "l-cp": 'radio "Express delivery"',
    "l-op": 'checkbox "Subscribe"',
    "l-none": 'checkbox "Dark mode"',
    "l-sz-s": 'radio "S"',
    "l-sz-m": 'radio "M" checked',
    "l-switch": 'checkbox "Notifications"',
    "c-plain": 'checkbox "Plain checkbox"',
    "l-photo": 'input "Upload photo" type=file',
}
TWINS = {"c-sr", "c-cp", "c-op", "c-none", "sz-s", "sz-m", "c-switch", "l-plain", "f-photo"}
DRAWN = {
    "svg-north": 'link "North" href=/test/custom-controls.html#north',
    "svg-south": 'link "South" href=/test/custom-controls.html#south',
    "ar-left": 'link "Left region" href=/test/custom-controls.html#left',
    "ar-right": 'link "Right region" href=/test/custom-controls.html#right',
}


async def test_labels_stand_in_for_hidden_inputs(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/test/custom-controls.html"))
    snap = Snapshotter()
    obs = await snap.snapshot(page)
    lines = by_id(obs)
    assert {k: lines.get(k) for k in CUSTOM} == CUSTOM
    # one line per control: not the hidden input beside its label, nor the label of a shown checkbox
    assert not TWINS & lines.keys()
    assert obs.summary.counts.inputs == len(CUSTOM)
    r = await check_page(page, snap)  # the probe counts a hidden input reached through its listed label
    assert not r.missing and not r.bad and r.truth >= len(CUSTOM) + len(DRAWN)


async def test_svg_links_and_image_map_areas_are_links(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/test/custom-controls.html"))
    obs = await Snapshotter().snapshot(page)
    lines = by_id(obs)
    assert {k: lines.get(k) for k in DRAWN} == DRAWN
    assert "icon" not in lines  # an svg without links is still not looked into
    area = next(e for e in obs.elements if e.attrs.get("id") == "ar-right")
    img = await page.locator("img[usemap]").bounding_box()
    assert img is not None
    # the circle's box sits on the image: 180-35 .. 180+35 from its left edge (1px border)
    assert abs(area.rect.x - (img["x"] + 1 + 145)) < 1 and abs(area.rect.width - 70) < 1


async def test_clicks_on_stand_in_labels_and_areas(kite: Kite, sites: SitesServer) -> None:  # noqa: F811
    await kite.goto(sites.url("/test/custom-controls.html"))
    res = await kite.act(action="click", index=await kite.index_of("#l-op"))
    assert res.ok, res
    await expect(kite.page.locator("#result")).to_have_text("changed c-op true")
    obs = await kite.snap.snapshot(kite.page)
    assert by_id(obs)["l-op"] == 'checkbox "Subscribe" checked'
    res = await kite.act(action="click", index=await kite.index_of("#l-sz-s"))
    assert res.ok, res
    await expect(kite.page.locator("#sz-s")).to_be_checked()
    res = await kite.act(action="click", index=await kite.index_of("#ar-left"))
    assert res.ok, res
    await expect(kite.page).to_have_url(sites.url("/test/custom-controls.html#left"))


MODAL = """<!doctype html><html><head><style>dialog::backdrop{background:transparent}</style></head><body>
<button id="behind">Behind</button><iframe id="fr" srcdoc="<button>In frame</button>" style="margin-top:1200px"></iframe>
<a id="below" href="#b">Far below</a>
<dialog id="dlg"><form method="dialog"><input id="who" placeholder="Name"><button id="ok">OK</button></form></dialog>
<script>document.getElementById('dlg').%s()</script></body></html>"""


async def test_controls_behind_a_modal_dialog_are_not_listed(page: Page, pages_server) -> None:  # type: ignore[no-untyped-def]
    await page.goto(pages_server.add("/modal.html", MODAL % "showModal"))
    obs = await Snapshotter().snapshot(page, include_all=True)
    assert {e.attrs.get("id") for e in obs.elements} == {"who", "ok"}  # inert below the fold too
    assert obs.summary.below == 0 and obs.summary.above == 0
    # a dialog opened with show() is not modal: the page behind stays usable and listed
    await page.goto(pages_server.add("/modeless.html", MODAL % "show"))
    obs = await Snapshotter().snapshot(page, include_all=True)
    assert {"behind", "below", "who", "ok"} <= {e.attrs.get("id") for e in obs.elements}
    assert any(e.frame is not None and e.name == "In frame" for e in obs.elements)


async def test_a_multiple_select_shows_every_chosen_option(page: Page, pages_server) -> None:  # type: ignore[no-untyped-def]
    html = """<select multiple id="m"><option selected>Red</option><option>Green</option><option selected>Blue</option>
    </select><select id="one"><option>A</option><option selected>B</option></select>"""
    await page.goto(pages_server.add("/multi.html", html))
    lines = by_id(await Snapshotter().snapshot(page))
    assert (
        lines["m"] == 'select id=m value="Red, Blue" options=Red|Green|Blue'
        and lines["one"] == "select id=one value=B options=A|B"
    )
