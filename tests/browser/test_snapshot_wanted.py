"""``wanted``: a viewport snapshot that also lists the few elements outside the viewport whose text or label
holds one of the task's words (the agent names them apart; the page text still shows the viewport only)."""

from __future__ import annotations

from playwright.async_api import Page

from kite_browser.agent.browser.render import render_observation
from kite_browser.agent.browser.snapshot import WANTED_CAP, Snapshotter

PAGE = """<!doctype html><title>Long</title><body style="margin:0">
<button>Top button</button>
<div style="height:3000px"></div>
<button>Show alert</button>
{many}
<button aria-label="Close the alert panel">x</button>
</body>"""


async def test_elements_below_the_fold_holding_a_wanted_word_are_listed_apart(page: Page) -> None:
    many = "\n".join(f"<a href='#{i}'>Alert item {i}</a>" for i in range(20))
    await page.set_content(PAGE.format(many=many))
    snap = Snapshotter()
    plain = await snap.snapshot(page)
    assert [e.name for e in plain.elements] == ["Top button"] and plain.summary.below == 22
    got = await snap.snapshot(page, wanted=["alert"])
    off = [e for e in got.elements if not e.in_viewport]
    # page order, up to the cap; the ones in view as before; the counts unchanged
    assert [e.name for e in off] == ["Show alert", *(f"Alert item {i}" for i in range(WANTED_CAP - 1))]
    assert [e.name for e in got.elements if e.in_viewport] == ["Top button"]
    assert got.summary.below == 22
    text = render_observation(got, budget_tokens=2000)
    assert "Show alert" not in text and "22 more below" in text, text
    # a label counts as well as text; a word nothing holds lists nothing
    labelled = await snap.snapshot(page, wanted=["panel"])
    assert [e.name for e in labelled.elements if not e.in_viewport] == ["Close the alert panel"]
    assert [e.name for e in (await snap.snapshot(page, wanted=["mango"])).elements] == ["Top button"]
