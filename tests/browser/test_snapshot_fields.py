"""Fields drawn with divs (custom selects, spinbuttons, sliders, contenteditable editors) were named by their
content, so the model read the current choice or the text typed as the label, and lost the value of a slider
or spinbutton. They are named by the label a person reads beside them and show what they hold as a value."""

from __future__ import annotations

from playwright.async_api import expect

from kite_browser.agent.browser.snapshot import Snapshotter
from kite_browser.evals.bench.recall import check_page
from kite_browser.evals.sites import SitesServer
from tests.browser.action_pages.harness import Kite, kite  # noqa: F401
from tests.browser.test_snapshot_custom_controls import by_id
from tests.fixtures.browser import PagesServer

FIELDS = {
    "size": 'combobox "Size" value=Medium collapsed',  # a wrapping <label> outside the field
    "country": 'combobox "Country" value=France collapsed',  # a label[for] pointing at a div
    "qty": 'spinbutton "Quantity" value=3',
    "bright": 'slider "Brightness" value="70 percent"',  # aria-valuetext before aria-valuenow
    "notes": 'textbox "Notes" value="Ring the bell twice"',
    "message": 'textbox placeholder="Write a message…"',  # an empty ProseMirror/TipTap editor
    "bare": 'textbox id=bare value="Draft one"',  # no label: its text is what it holds, not its name
}


async def test_div_fields_are_named_by_their_label_and_show_their_value(
    kite: Kite,  # noqa: F811
    sites: SitesServer,
) -> None:
    await kite.goto(sites.url("/test/div-fields.html"))
    obs = await kite.snap.snapshot(kite.page)
    assert by_id(obs) == FIELDS
    r = await check_page(kite.page, Snapshotter())
    assert not r.missing and not r.bad
    # the custom select is used as a person would: open it, pick from the list drawn at the end of the body
    res = await kite.act(action="click", index=await kite.index_of("#size"))
    assert res.ok, res
    lines = by_id(await kite.snap.snapshot(kite.page))
    assert lines["size"] == 'combobox "Size" value=Medium expanded'
    assert lines["opt-l"] == 'option "Large"'
    res = await kite.act(action="click", index=await kite.index_of("#opt-l"))
    assert res.ok, res
    await expect(kite.page.locator("#chosen")).to_have_text("size: Large")
    assert by_id(await kite.snap.snapshot(kite.page))["size"] == 'combobox "Size" value=Large collapsed'


_LOOSE = """<!doctype html><body><form>
<div><label id="l1">Last name:</label><input type="text" id="tt1"></div>
<div><label id="l2">Gender</label><input type="text" id="tt2"></div>
<div><label for="other">Bound elsewhere</label><input type="text" id="tt3"></div>
<div><label>Wraps <input type="checkbox" id="c1"></label><input type="text" id="tt4"></div>
<div><span>Not a label:</span><input type="text" id="tt5"></div>
<input type="text" id="other">
</form></body>"""


async def test_a_label_bound_to_nothing_names_the_field_right_after_it(
    kite: Kite,  # noqa: F811
    pages_server: PagesServer,
) -> None:
    """``<label>Last name:</label><input>`` with no ``for``: the field is named by the label a person reads
    beside it (recorded: MiniWoB read-table-2 showed two nameless inputs after their labels, and the model
    typed the gender into the last-name field). A label bound to another field, or holding its own control,
    names nothing else."""
    await kite.goto(pages_server.add("/loose.html", _LOOSE))
    lines = by_id(await kite.snap.snapshot(kite.page))
    assert lines["tt1"] == 'input "Last name"'
    assert lines["tt2"] == 'input "Gender"'
    assert lines["tt3"] == "input id=tt3"
    assert lines["tt4"] == "input id=tt4"
    assert lines["tt5"] == "input id=tt5"
    assert lines["other"] == 'input "Bound elsewhere"'
