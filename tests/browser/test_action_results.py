# ruff: noqa: F811  (the kite fixture is imported into each module)
"""Truthful action results for a small model's habits, on a real Chromium: select on a radio or a checkbox,
pressing Enter where nothing happens, typing the same text twice, CSS the page does not understand."""

from __future__ import annotations

from kite_browser.agent.browser.exec.base import NO_EFFECT
from kite_browser.agent.browser.render import element_line, role_word
from kite_browser.evals.sites import SitesServer
from tests.browser.action_pages.harness import (
    Kite,
    kite,  # noqa: F401
)


async def test_select_on_a_radio_clicks_it_and_says_checked(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/forms/"))
    email = await kite.index_of("#contact-email")
    res = await kite.act(action="select", index=email, value="By email")
    assert res.ok and res.message.startswith(f'checked [{email}] radio "By email"'), res
    assert res.effects.value == "checked" and await kite.page.is_checked("#contact-email")
    # The habit of naming another option of the group on the radio it saw: that one is checked.
    other = await kite.act(action="select", index=email, value="phone")
    assert other.ok and "By phone" in other.message and await kite.page.is_checked("#contact-phone")
    again = await kite.act(action="select", index=email, value="By phone")
    assert again.ok and "already checked" in again.message and await kite.page.is_checked("#contact-phone")


async def test_select_on_a_checkbox_ticks_it_once(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/forms/"))
    box = await kite.index_of("#subscribe")
    first = await kite.act(action="select", index=box, value="yes")
    assert first.ok and first.message.startswith(f"checked [{box}] checkbox") and first.error is None
    second = await kite.act(action="select", index=box, value="Subscribe to updates")
    assert second.ok and "already checked" in second.message  # select never unticks
    assert await kite.page.is_checked("#subscribe")


async def test_select_naming_another_checkbox_ticks_that_one(kite: Kite, sites: SitesServer) -> None:
    """The small model's habit: "Select HF2" as select(index=<the first box it saw>, value="HF2")."""
    await kite.goto(sites.url("/forms/"))
    terms = await kite.index_of("#terms")
    res = await kite.act(action="select", index=terms, value="Subscribe to updates")
    assert res.ok and "Subscribe to updates" in res.message, res
    assert await kite.page.is_checked("#subscribe") and not await kite.page.is_checked("#terms")


async def test_an_action_without_effect_says_nothing_changed(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/test/counter.html"))
    enter = await kite.act(action="pressKey", key="Enter")
    assert enter.ok and enter.message == "pressed Enter: nothing changed" and enter.effects.changed is False
    tab = await kite.act(action="pressKey", key="Tab")  # moves the focus: a change without a DOM mutation
    assert tab.ok and "nothing changed" not in tab.message and tab.effects.changed is True
    inc = await kite.index_of("#increment")
    click = await kite.act(action="click", index=inc)
    assert click.ok and "nothing changed" not in click.message and click.effects.changed is True


async def test_enter_in_a_search_field_that_submits_is_a_change(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/shop/"))
    search = await kite.index_of("#search")
    typed = await kite.act(action="type", index=search, text="blue mug")
    enter = await kite.act(action="pressKey", key="Enter")
    assert typed.ok and enter.ok and enter.effects.navigated and "nothing changed" not in enter.message


async def test_typing_the_same_text_twice_does_not_duplicate_it(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/shop/"))
    search = await kite.index_of("#search")
    for n in range(2):
        res = await kite.act(action="type", index=search, text="blue mug")
        assert res.ok and res.effects.value == "blue mug", res
        assert ("already held 'blue mug': nothing changed" in res.message) is (n == 1), res.message
    assert await kite.page.input_value("#search") == "blue mug"
    more = await kite.act(action="type", index=search, text=" large", clear=False)  # appends when asked
    assert more.effects.value == "blue mug large"
    # The small model's habit: clear=false on every type of the same text (it typed "AgustinaAgustina...").
    for _ in range(2):
        again = await kite.act(action="type", index=search, text=" large", clear=False)
        assert again.ok and again.effects.value == "blue mug large", again
        assert "already ends with this text: not typed again" in again.message
    assert await kite.page.input_value("#search") == "blue mug large"


async def test_a_click_on_a_checkbox_says_whether_it_is_now_checked(kite: Kite, sites: SitesServer) -> None:
    """The small model's habit: clicking a box it had just ticked (and so unticking it) step after step."""
    await kite.goto(sites.url("/forms/"))
    box = await kite.index_of("#subscribe")
    first = await kite.act(action="click", index=box)
    assert first.ok and first.message.endswith(": now checked") and await kite.page.is_checked("#subscribe")
    assert " at (" not in first.message  # coordinates stay in the data, not in the model's words
    await kite.snap.snapshot(kite.page)
    second = await kite.act(action="click", index=box)
    assert second.ok and "now unchecked (it was checked: this click unticked it)" in second.message
    assert not await kite.page.is_checked("#subscribe")
    radio = await kite.index_of("#contact-email")
    await kite.snap.snapshot(kite.page)
    for said, unneeded in ((": now checked", False), (": still checked", True)):
        res = await kite.act(action="click", index=radio)
        assert res.ok and res.message.endswith(said), res.message
        # a radio already chosen, clicked again, changed nothing: the loop guard is told so
        assert bool(res.data.get(NO_EFFECT)) is unneeded
        await kite.snap.snapshot(kite.page)
    assert not first.data.get(NO_EFFECT) and not second.data.get(NO_EFFECT)


async def test_an_invalid_selector_says_use_the_index(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/forms/"))
    bad = await kite.act(action="click", selector="button:contains('Submit')")
    assert not bad.ok and bad.error is not None and bad.error.error == "invalid_selector"
    assert "use the element's index" in bad.message
    missing = await kite.act(action="click", selector="#no-such-button")
    assert not missing.ok and "use the element's index" in missing.message


async def test_results_name_elements_with_the_element_list_role_words(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/forms/"))
    for css in ("#terms", "#contact-post", "#full-name"):
        idx = await kite.index_of(css)
        el = kite.element(idx)
        assert el is not None
        res = await kite.act(action="click", index=idx)
        said = f'[{idx}] {role_word(el)} "{el.name}"'  # checkbox / radio / input, not the tag or kind
        assert element_line(el).lstrip("*").startswith(said) and said in res.message, (said, res.message)


async def test_press_key_on_an_index_focuses_that_element_first(kite: Kite, sites: SitesServer) -> None:
    """The small model's habit: pressKey(index=<the field>, key=Enter) (the index was dropped with a note)."""
    await kite.goto(sites.url("/shop/"))
    search = await kite.index_of("#search")
    await kite.act(action="type", index=search, text="blue mug")
    await kite.page.evaluate("document.activeElement.blur()")
    enter = await kite.act(action="pressKey", key="Enter", index=search)
    assert enter.ok and f"pressed Enter on [{search}]" in enter.message and enter.effects.navigated, enter
    assert "q=blue" in kite.page.url


async def test_select_of_the_option_already_shown_says_so(kite: Kite, sites: SitesServer) -> None:
    """The small model selected the option a list already showed, read 'nothing changed', and selected it again."""
    await kite.goto(sites.url("/forms/"))
    country = await kite.index_of("#country")
    first = await kite.act(action="select", index=country, value="Germany")
    assert first.ok and first.message == f"selected 'Germany' in [{country}] select \"Country\"", (
        first.message
    )
    await kite.snap.snapshot(kite.page)
    again = await kite.act(action="select", index=country, value="Germany")
    assert (
        again.ok
        and again.message
        == f"'Germany' was already selected in [{country}] select \"Country\": nothing changed"
    )


async def test_select_on_a_text_field_says_use_type(kite: Kite, sites: SitesServer) -> None:
    """The small model selected "blue" in a Quantity field; Kite clicked some text "blue" on the page and said ok."""
    await kite.goto(sites.url("/forms/"))
    name = await kite.index_of("#full-name")
    res = await kite.act(action="select", index=name, value="blue")
    assert not res.ok and res.error is not None and res.error.error == "not_interactable"
    assert "is a text field, not a dropdown: use type" in res.message
