# ruff: noqa: F811  (the kite fixture is imported into each module)
"""click / hover / dragDrop on the bundled sites: real mouse events, covered elements, fallbacks, stale indexes."""

from __future__ import annotations

from playwright.async_api import expect

from kite_browser.evals.sites import SitesServer
from tests.browser.action_pages.harness import Kite, kite  # noqa: F401


async def test_click_by_index_uses_the_mouse_and_reports_added_elements(
    kite: Kite, sites: SitesServer
) -> None:
    await kite.goto(sites.url("/test/counter.html"))
    idx = await kite.index_of("#add-item")
    res = await kite.act(action="click", index=idx)
    assert res.ok, res.error
    assert res.method == "mouse"
    assert await kite.page.locator("#items li").count() >= 1
    assert res.effects.navigated is False
    assert res.effects.url_before == res.effects.url_after


async def test_click_covered_element_names_the_cover_and_does_not_click(
    kite: Kite, sites: SitesServer
) -> None:
    await kite.goto(sites.url("/test/overlay.html"))
    # The real engine skips covered elements: the model saw the button before the banner appeared.
    banner = kite.page.locator("#cookie-banner")
    await banner.evaluate("e => { e.style.display = 'none'; }")
    idx = await kite.index_of("#buy-now")
    await banner.evaluate("e => { e.style.display = ''; }")
    before = await kite.page.locator("#result").inner_text()
    res = await kite.act(action="click", index=idx)
    assert not res.ok
    assert res.error is not None and res.error.error == "element_covered"
    assert "covered by" in res.message and "cookie-banner" in res.message
    assert res.error.model_extra["covered_by"].startswith("div#cookie-banner")
    assert await kite.page.locator("#result").inner_text() == before


async def test_stale_index_returns_fresh_list_and_clicks_nothing(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/test/counter.html"))
    idx = await kite.index_of("#increment")
    await kite.page.evaluate("document.querySelector('#increment').remove()")
    res = await kite.act(action="click", index=idx)
    assert not res.ok and res.error is not None
    assert res.error.error == "stale_element"
    fresh = res.error.model_extra.get("elements")
    assert fresh and "Add item" in str(fresh)
    assert await kite.page.locator("#count").inner_text() == "0"


async def test_nonexistent_index_is_stale(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/test/counter.html"))
    res = await kite.act(action="click", index=9999)
    assert res.error is not None and res.error.error == "stale_element"
    ok = await kite.act(action="click", selector="#increment")  # the session keeps working
    assert ok.ok and await kite.page.locator("#count").inner_text() == "1"


async def test_selector_and_xpath_targets_and_their_errors(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/test/counter.html"))
    assert (await kite.act(action="click", selector="//button[@id='increment']")).ok
    none = await kite.act(action="click", selector="#does-not-exist")
    assert (
        none.error is not None
        and none.error.error == "element_not_found"
        and none.error.model_extra["count"] == 0
    )
    await kite.page.evaluate(
        "for (let i = 0; i < 10; i++) document.body.append(document.createElement('button'))"
    )
    many = await kite.act(action="click", selector="body > button")
    assert many.error is not None and many.error.error == "ambiguous_selector"
    assert many.error.model_extra["count"] >= 10 and "matches" in many.message


async def test_two_target_kinds_and_outside_viewport_are_typed_errors(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/test/counter.html"))
    both = await kite.act(action="click", index=1, selector="#increment")
    assert both.error is not None and both.error.error == "invalid_action" and "index" in both.message
    out = await kite.act(action="click", x=5000, y=10)
    assert out.error is not None and out.error.error == "outside_viewport"
    box = await kite.page.locator("#increment").bounding_box()
    assert box
    res = await kite.act(action="click", x=box["x"] + 5, y=box["y"] + 5)
    assert res.ok and res.method == "mouse" and await kite.page.locator("#count").inner_text() == "1"


async def test_hidden_control_falls_back_to_js_click(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/forms/"))
    await kite.page.evaluate(
        "document.querySelector('#terms').style.cssText = 'position:absolute;width:0;height:0;opacity:0'"
    )
    res = await kite.act(action="click", selector="#terms")
    assert res.ok and res.method in ("locator", "js")
    assert await kite.page.locator("#terms").is_checked()


async def test_hover_opens_the_hover_menu(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/dynamic/"))
    # The news above the menu arrives 0.7 s after load and pushes the menu down, from under the mouse: under
    # load that happened after the hover (a CI rehearsal). Hover once the page's layout is final.
    await expect(kite.page.locator("#loaded-message")).to_have_text("Loaded 5 items")
    assert not await kite.page.locator("#submenu").is_visible()
    idx = await kite.index_of("#menu-trigger")
    res = await kite.act(action="hover", index=idx)
    assert res.ok and res.method == "mouse"
    assert await kite.page.locator("#submenu").is_visible()


async def test_no_js_click_or_hover_on_what_the_page_hides(kite: Kite, sites: SitesServer) -> None:
    """A link of a closed menu, a button whose section was hidden after the look: refused, typed, nothing fired
    (a JS click would fire the page's handler behind a person's back); reachable again once opened."""
    await kite.goto(sites.url("/dynamic/"))
    await expect(kite.page.locator("#loaded-message")).to_have_text("Loaded 5 items")
    phones = "#submenu a[data-item=Phones]"
    for action in ("click", "hover"):
        res = await kite.act(action=action, selector=phones)
        assert res.error is not None and res.error.error == "not_interactable", res.message
        assert "inside a hidden <ul#submenu>" in res.message and "open what holds it" in res.message
    assert await kite.page.locator("#menu-result").inner_text() == ""
    assert (await kite.act(action="hover", index=await kite.index_of("#menu-trigger"))).ok
    res = await kite.act(action="click", selector=phones)
    assert res.ok and res.method == "mouse", res.message
    await expect(kite.page.locator("#menu-result")).to_have_text("Menu choice: Phones")

    idx = await kite.index_of("#alert-button")  # listed while shown; its section hidden since
    await kite.page.evaluate(
        "document.querySelector('#alert-button').closest('section').style.display = 'none'"
    )
    kite.page.on("dialog", lambda d: d.accept())
    res = await kite.act(action="click", index=idx)
    assert (
        res.error is not None and res.error.error == "not_interactable" and "hidden <section>" in res.message
    )
    assert await kite.page.locator("#dialog-result").inner_text() == ""


async def test_hidden_kinds_refused_boxless_but_rendered_still_clicked(
    kite: Kite, sites: SitesServer
) -> None:
    """Every way a page hides a control is refused (display, a parent's display, visibility, the hidden
    attribute, a closed <details>, an image map whose image is hidden); a rendered control with no box (zero
    size) keeps its JS click. A shown image map's area (never rendered itself: ``display: none``) is clicked:
    tests/browser/test_snapshot_custom_controls.py."""
    await kite.goto(sites.url("/test/hidden.html"))
    hidden = {
        "display-none": "it is hidden (display: none)",
        "parent-display-none": "it is inside a hidden <div>",
        "visibility-hidden": "it is hidden (visibility)",
        "hidden-attr": "it is hidden (display: none)",
        "in-closed-details": "it is inside a closed <details>",
        "area-in-hidden-div": "it is inside a hidden <div>",  # an area is shown where its map's image is
    }
    for css_id, why in hidden.items():
        res = await kite.act(action="click", selector=f"#{css_id}")
        assert res.error is not None and res.error.error == "not_interactable", (css_id, res.message)
        assert why in res.message, (css_id, res.message)
    assert await kite.page.locator("#result").inner_text() == ""
    res = await kite.act(action="click", selector="#zero-size")
    assert res.ok and res.method == "js", res.message
    await expect(kite.page.locator("#result")).to_have_text("Clicked zero-size")


async def test_a_click_that_opens_or_closes_a_section_says_so(kite: Kite, sites: SitesServer) -> None:
    """The result names the new state of a disclosure the look showed collapsed or expanded, and a second click
    that closes it says it did (the checkbox's 'now unchecked' for sections)."""
    await kite.goto(sites.url("/test/hidden.html"))
    summary = await kite.index_of("#details-summary")
    opened = await kite.act(action="click", index=summary)
    assert opened.ok and opened.message.endswith(": now expanded") and opened.data["toggled"] == "expanded"
    assert await kite.page.locator("details").evaluate("d => d.open")
    summary = await kite.index_of("#details-summary")  # the next look: listed expanded
    closed = await kite.act(action="click", index=summary)
    assert closed.ok and "now collapsed (it was expanded: this click closed it)" in closed.message
    assert closed.data["toggled"] == "collapsed" and not await kite.page.locator("details").evaluate(
        "d => d.open"
    )
    plain = await kite.act(action="click", index=await kite.index_of("#visible-button"))
    assert plain.ok and "toggled" not in plain.data and "now" not in plain.message


async def test_drag_html5_item_to_drop_zone(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/dynamic/"))
    src = await kite.index_of("#task-a")
    await kite.page.locator("#drop-zone").scroll_into_view_if_needed()
    zone = await kite.page.locator("#drop-zone").bounding_box()
    assert zone
    to = {"x": zone["x"] + zone["width"] / 2, "y": zone["y"] + zone["height"] / 2}
    res = await kite.act(action="dragDrop", **{"from": {"index": src}, "to": to})
    assert res.ok, res.error
    assert await kite.page.locator("#drop-zone #task-a").count() == 1


async def test_drag_mouse_slider(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/test/slider.html"))
    thumb = await kite.index_of("#thumb")
    track = await kite.page.locator("#track").bounding_box()
    assert track
    res = await kite.act(
        action="dragDrop",
        **{
            "from": {"index": thumb},
            "to": [track["x"] + track["width"] * 0.9, track["y"] + track["height"] / 2],
        },
    )
    assert res.ok, res.error
    assert int(await kite.page.locator("#thumb").get_attribute("aria-valuenow") or 0) >= 80


async def test_drag_sortable_list(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/test/sortable.html"))
    first, last = await kite.index_of("li[data-id=alpha]"), await kite.index_of("li[data-id=echo]")
    res = await kite.act(action="dragDrop", **{"from": {"index": first}, "to": {"index": last}})
    assert res.ok, res.error
    order = await kite.page.locator("#sortable li").evaluate_all("els => els.map(e => e.dataset.id)")
    assert order[0] != "alpha" and order.index("alpha") >= 3


async def test_click_lands_on_the_visible_part_of_a_partly_covered_button(
    kite: Kite, sites: SitesServer
) -> None:
    await kite.goto(sites.url("/test/counter.html"))
    idx = await kite.index_of("#increment")
    # A sticker covers the centre of the button (but not its edges).
    await kite.page.evaluate("""() => {
        const b = document.querySelector('#increment').getBoundingClientRect();
        const s = document.createElement('div');
        s.id = 'sticker';
        Object.assign(s.style, {position: 'fixed', left: (b.left + b.width * 0.4) + 'px', top: b.top + 'px',
                                width: (b.width * 0.2) + 'px', height: b.height + 'px', background: 'red'});
        document.body.appendChild(s);
    }""")
    covered = await kite.page.evaluate("""() => { const b = document.querySelector('#increment').getBoundingClientRect();
        return document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2).id; }""")
    assert covered == "sticker"
    res = await kite.act(action="click", index=idx)
    assert res.ok and res.method == "mouse", res.error
    assert await kite.page.locator("#count").inner_text() == "1"


SLIDING = """<!doctype html><title>Sliding</title>
<button id="b" onclick="document.getElementById('out').textContent = 'clicked'">Open section</button>
<p id="out">not yet</p>
<div id="cover" style="position:fixed; left:0; top:0; width:400px; height:200px; background:#eee;
  transition: transform 0.3s linear">Panel</div>"""


async def test_a_cover_on_the_move_is_waited_for_and_a_still_one_is_not(kite: Kite) -> None:
    """Recorded (the MiniWoB oracle on click-collapsible-2): the link the next click wants is covered while the
    accordion panel above it is still opening. A cover that moves away within half a second is waited for;
    one that stays is reported as covering, as before."""
    await kite.page.set_content(SLIDING)
    cover = kite.page.locator("#cover")
    await cover.evaluate("e => { e.style.display = 'none'; }")
    idx = await kite.index_of("#b")
    await cover.evaluate("e => { e.style.display = ''; }")
    res = await kite.act(action="click", index=idx)  # a cover that stays
    assert res.error is not None and res.error.error == "element_covered", res
    assert await kite.page.locator("#out").inner_text() == "not yet"
    await cover.evaluate("e => { e.offsetWidth; e.style.transform = 'translateX(3000px)'; }")
    res = await kite.act(action="click", index=idx)  # at once, while it slides away
    assert res.ok, res.message
    assert await kite.page.locator("#out").inner_text() == "clicked"
