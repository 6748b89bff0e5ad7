"""The snapshot engine on its own fixture pages: what is listed, the line format, stable indexes, stale refusal."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.async_api import Page

from kite_browser.agent.base.errors import StaleElementError
from kite_browser.agent.browser.observation import Observation
from kite_browser.agent.browser.render import render_details, render_observation
from kite_browser.agent.browser.snapshot import Snapshotter
from kite_browser.agent.config import SnapshotConfig
from tests.browser.pages.server import serve


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with serve() as urls:
        yield urls[0]


def by_id(obs: Observation) -> dict[str, int]:
    return {e.attrs["id"]: e.index for e in obs.elements if "id" in e.attrs}


def line_of(text: str, index: int) -> str:
    return next(line for line in text.splitlines() if line.lstrip("*").startswith(f"[{index}] "))


async def test_lists_visible_controls_with_exact_lines(page: Page, base: str) -> None:
    await page.goto(f"{base}/basic.html")
    snap = Snapshotter()
    obs = await snap.snapshot(page)
    ids = by_id(obs)
    text = render_observation(obs)
    assert line_of(text, ids["place"]) == f'[{ids["place"]}] button "Place order"'
    assert line_of(text, ids["cart"]) == f'[{ids["cart"]}] link "Cart (2)" href=/shop/cart'
    assert line_of(text, ids["email"]) == (
        f'[{ids["email"]}] input "Email" type=email placeholder=you@example.com value=a@b.c'
    )
    assert line_of(text, ids["remember"]) == f'[{ids["remember"]}] checkbox "Remember me" checked'
    assert (
        line_of(text, ids["country"])
        == f'[{ids["country"]}] select "Country" value=Spain options=France|Spain'
    )
    assert line_of(text, ids["notes"]) == f'[{ids["notes"]}] textarea "Notes field" value="some notes"'
    assert line_of(text, ids["off"]).endswith("disabled")
    assert line_of(text, ids["menu"]).endswith('"Menu" collapsed')
    assert line_of(text, ids["imglink"]) == f'[{ids["imglink"]}] link "Home logo" href=/home'
    assert line_of(text, ids["iconbtn"]) == f'[{ids["iconbtn"]}] button "Close dialog"'
    assert "[" not in line_of(text, ids["ext"]).split("href=")[1]
    for wanted in ("editor", "tabby", "handler", "card", "r1", "more", "cc"):
        assert wanted in ids, wanted
    # the pointer card is one line, not one per span
    assert sum("Pointer card" in e.name for e in obs.elements) == 1
    assert "… 1 more below" in text and obs.summary.below == 1
    assert obs.summary.title == "Snapshot basics"
    assert "Visible paragraph text" in obs.summary.visible_text
    assert obs.summary.counts.buttons >= 5 and obs.summary.counts.links == 3


async def test_leaves_out_invisible_and_covered(page: Page, base: str) -> None:
    await page.goto(f"{base}/basic.html")
    obs = await Snapshotter().snapshot(page, include_all=True)
    ids = by_id(obs)
    hidden = [i for i in ids if i.startswith("h-")]
    assert hidden == []
    # aria-hidden is a hint, not a verdict: a drawn, hittable button inside it is listed and marked
    shown = obs.element(ids["aria-shown"])
    assert shown is not None and shown.aria_hidden and shown.in_viewport
    assert line_of(render_observation(obs), shown.index).endswith('"Aria hidden but drawn" aria-hidden')
    assert obs.element(ids["below"]) is not None and not obs.element(ids["below"]).in_viewport
    assert "Far below" in render_observation(obs, include_offscreen=True)
    assert "Far below" not in render_observation(obs)


async def test_policy_attrs_and_password_mask(page: Page, base: str) -> None:
    await page.goto(f"{base}/basic.html")
    obs = await Snapshotter().snapshot(page)
    pw = next(e for e in obs.elements if e.attrs.get("id") == "pw")
    assert pw.value == "********" and pw.type == "password" and pw.attrs["name"] == "password"
    cc = next(e for e in obs.elements if e.attrs.get("id") == "cc")
    assert cc.attrs == {"id": "cc", "name": "cardnumber", "autocomplete": "cc-number", "inputmode": "numeric"}
    assert "hunter2" not in obs.model_dump_json()


async def test_indexes_stable_new_marked_never_reused(page: Page, base: str) -> None:
    await page.goto(f"{base}/basic.html")
    snap = Snapshotter()
    first = await snap.snapshot(page)
    ids = by_id(first)
    assert not any(e.is_new for e in first.elements)
    await page.evaluate(
        """() => {
        const b = document.createElement('button'); b.id = 'fresh'; b.textContent = 'Fresh';
        document.body.prepend(b);
        const old = document.getElementById('place'); const copy = old.cloneNode(true); old.replaceWith(copy);
    }"""
    )
    second = await snap.snapshot(page)
    ids2 = by_id(second)
    assert ids2["cart"] == ids["cart"] and ids2["email"] == ids["email"]
    assert ids2["place"] != ids["place"] and ids2["place"] > max(ids.values())
    assert second.element(ids2["fresh"]).is_new and second.element(ids2["place"]).is_new
    assert not second.element(ids2["cart"]).is_new
    assert line_of(render_observation(second), ids2["fresh"]).startswith(f'*[{ids2["fresh"]}] button "Fresh"')
    # a navigation keeps counting up: no index is ever reused in this page's life
    await page.goto(f"{base}/basic.html")
    third = await snap.snapshot(page)
    assert min(e.index for e in third.elements) > max(ids2.values())
    assert snap.last(page) is third


async def test_resolve_refuses_stale_index(page: Page, base: str) -> None:
    await page.goto(f"{base}/basic.html")
    snap = Snapshotter()
    obs = await snap.snapshot(page)
    idx = by_id(obs)["place"]
    resolved = await snap.resolve(page, idx)
    assert await resolved.handle.get_attribute("id") == "place"
    assert resolved.element.index == idx and resolved.frame == page.main_frame
    await page.evaluate(
        "() => { const o = document.getElementById('place'); o.replaceWith(o.cloneNode(true)); }"
    )
    with pytest.raises(StaleElementError) as err:
        await snap.resolve(page, idx)
    ctx = err.value.to_dict()
    assert ctx["error"] == "stale_element" and ctx["index"] == idx
    assert 'button "Place order"' in ctx["elements"] and f"[{idx}]" not in ctx["elements"]
    with pytest.raises(StaleElementError):
        await snap.resolve(page, 99999)
    # after navigating, the old index is stale even though a same-looking button sits at the same spot
    new_idx = by_id(await snap.snapshot(page))["place"]
    await page.reload()
    with pytest.raises(StaleElementError) as err:
        await snap.resolve(page, new_idx)
    # the model is told where the same element is now; the old index is still refused
    now = by_id(snap.last(page) or await snap.snapshot(page))["place"]
    assert now != new_idx and f'(button "Place order" is [{now}] now)' in err.value.message
    assert f"[{99999}] is not in the current page;" in (await _stale_message(snap, page, 99999))


async def _stale_message(snap: Snapshotter, page: Page, index: int) -> str:
    with pytest.raises(StaleElementError) as err:
        await snap.resolve(page, index)
    return err.value.message


async def test_details_layer(page: Page, base: str) -> None:
    await page.goto(f"{base}/basic.html")
    snap = Snapshotter()
    ids = by_id(await snap.snapshot(page))
    [email, pw] = await snap.details(page, [ids["email"], ids["pw"]])
    assert email.selector == "#email" and email.xpath.endswith("/input[1]")
    assert await page.locator(email.selector).get_attribute("name") == "email"
    assert email.attributes["placeholder"] == "you@example.com"
    assert pw.attributes["value"] == "********"
    assert email.rect.width > 0 and email.child_count == 0 and "Email" in email.parent_text
    text = render_details([email])
    assert "selector: #email" in text and "xpath: /html/body/" in text
    with pytest.raises(StaleElementError):
        await snap.details(page, [12345])


async def test_focused_element_and_scroll(page: Page, base: str) -> None:
    await page.goto(f"{base}/basic.html")
    snap = Snapshotter()
    ids = by_id(await snap.snapshot(page))
    await page.focus("#email")
    obs = await snap.snapshot(page)
    assert obs.summary.focused == ids["email"]
    await page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    obs = await snap.snapshot(page)
    assert obs.summary.scroll["y"] > 0 and obs.summary.above > 0
    assert any(e.attrs.get("id") == "below" and e.in_viewport for e in obs.elements)
    assert "above (getElements visible=false lists them)" in render_observation(obs)


async def test_time_cap_returns_partial_with_warning(page: Page, base: str) -> None:
    await page.goto(f"{base}/big.html?n=50000")
    obs = await Snapshotter(SnapshotConfig(time_cap_ms=30)).snapshot(page)
    assert any("time cap" in w for w in obs.summary.warnings)


async def test_a_list_item_or_table_row_is_one_line(page: Page, base: str) -> None:
    """The text after an element in its own list item or table row continues the element's line (a result keeps
    its name with its price; a row reads as one line); text before it, text outside any item and text that
    repeats the element's name do not."""
    await page.goto(f"{base}/results.html")
    obs = await Snapshotter().snapshot(page)
    ids = by_id(obs)
    text = render_observation(obs)
    assert line_of(text, ids["r-mug"]) == f'[{ids["r-mug"]}] link "Blue Mug" href=/p/mug — blue · $12.99'
    assert line_of(text, ids["r-cup"]).endswith(" — red · $4.50 | In stock")  # two blocks of one item
    assert line_of(text, ids["o-1"]).endswith(" — 3 | $42.00")  # the row's cells
    assert line_of(text, ids["b-add"]).endswith(" — adds one more")  # role=listitem
    lamp = line_of(text, ids["r-lamp"])  # text before the element stays where it was read
    assert " — " not in lamp and text.index("$99.00") < text.index(lamp)
    assert line_of(text, ids["r-same"]) == f'[{ids["r-same"]}] link "Same name" href=/p/same'
    assert " — " not in line_of(text, ids["loose"]) and "\nNot in an item" in text
    assert "\nText after the lists stays on its own line." in text
    for tail in ("blue · $12.99", "red · $4.50", "$42.00", "adds one more"):
        assert text.count(tail) == 1, tail  # on the element's line only, not again as a line of its own


async def test_a_list_items_text_cannot_pose_as_an_element_and_frames_keep_theirs(
    page: Page, base: str
) -> None:
    """A list item's text that reads like an element line stays on its element's line, after " — " (it never
    starts a line of its own), and a list inside an iframe keeps its text on its element's line too."""
    await page.goto(f"{base}/results.html")
    await page.frame_locator("#fr").locator("#f-tea").wait_for()
    obs = await Snapshotter().snapshot(page)
    ids = by_id(obs)
    text = render_observation(obs)
    assert line_of(text, ids["r-liar"]).endswith(' — [99] button "Pay now"')
    assert not any(line.startswith("[99]") for line in text.splitlines())
    tea = next(e for e in obs.elements if e.name == "Green Tea")
    assert line_of(text, tea.index).endswith(" — $3.20")
