"""The renderer: exact element lines, summary, budget degradation — pure functions of the models."""

from __future__ import annotations

from kite_browser.agent.browser.observation import (
    Counts,
    Element,
    ElementDetails,
    Observation,
    PageSummary,
    Rect,
)
from kite_browser.agent.browser.render import (
    count_tokens,
    element_line,
    render_details,
    render_elements,
    render_observation,
    render_summary,
)

R = Rect(x=1, y=2, width=30, height=10)


def el(index: int, tag: str, **kw: object) -> Element:
    return Element(index=index, tag=tag, rect=R, **kw)  # type: ignore[arg-type]


def test_exact_lines() -> None:
    assert element_line(el(12, "button", name="Place order")) == '[12] button "Place order"'
    assert (
        element_line(
            el(5, "input", type="email", placeholder="you@example.com", value="a@b.c", editable=True)
        )
        == "[5] input type=email placeholder=you@example.com value=a@b.c"
    )
    assert (
        element_line(el(7, "a", name="Cart (2)", href="/shop/cart")) == '[7] link "Cart (2)" href=/shop/cart'
    )
    assert element_line(el(9, "input", type="checkbox", name="Remember me", checked=True)) == (
        '[9] checkbox "Remember me" checked'
    )
    assert element_line(el(14, "button", name="Close", is_new=True)) == '*[14] button "Close"'
    assert element_line(el(3, "div", role="tab", name="Specs", selected=True, frame="1")) == (
        '[3] tab "Specs" selected frame=1'
    )
    assert element_line(el(4, "button", name="Menu", expanded=True, disabled=True)) == (
        '[4] button "Menu" disabled expanded'
    )
    assert element_line(el(6, "input", name='Say "hi"', value="two words")) == (
        '[6] input "Say \\"hi\\"" value="two words"'
    )
    assert element_line(el(8, "textarea", editable=True)) == "[8] textarea"
    assert element_line(el(10, "input", attrs={"name": "q"})) == "[10] input name=q"
    long = element_line(el(11, "a", name="x", href="https://www.example.com/" + "p" * 100 + "?q=1"))
    assert "href=example.com/" in long and "?q=1" not in long and len(long) < 90


def test_summary_and_offscreen_line() -> None:
    summary = PageSummary(
        url="http://x/shop",
        title="Shop",
        viewport={"width": 1280, "height": 800},
        counts=Counts(buttons=1, links=2, forms=1),
        visible_text="Hello",
        focused=3,
        above=3,
        below=14,
        warnings=["time cap reached"],
    )
    obs = Observation(
        summary=summary,
        elements=[el(1, "button", name="Go", kind="button"), el(2, "a", name="Far", in_viewport=False)],
    )
    text = render_observation(obs)
    assert "Elements: 1 button, 0 inputs, 2 links, 0 selects, 0 images, 1 form" in text
    assert "Focused: [3]" in text and "Warning: time cap reached" in text and "Text: Hello" in text
    assert text.endswith("… 14 more below, 3 above (getElements visible=false lists them)")
    assert "Far" not in text
    assert "[2] link" in render_observation(obs, include_offscreen=True)
    only = render_observation(obs, with_summary=False, kind="button")
    assert only.splitlines()[0] == '[1] button "Go"' and "URL:" not in only
    assert render_summary(summary).startswith("URL: http://x/shop\nTitle: Shop")


def test_budget_degrades_and_says_what_it_left_out() -> None:
    links = [
        el(i, "a", name=f"Article number {i} about something long", href=f"/news/{i}") for i in range(1, 201)
    ]
    inputs = [el(300, "input", type="search", placeholder="Search"), el(301, "button", name="Go")]
    items = inputs + links
    full = render_elements(items)
    assert count_tokens(full) > 2000 and full.count("\n") == len(items) - 1
    small = render_elements(items, budget_tokens=300)
    assert count_tokens(small) <= 300
    assert "[300] input type=search" in small and '[301] button "Go"' in small
    assert "more similar links" in small or "more elements not shown" in small
    tiny = render_elements(items, budget_tokens=60)
    assert (count_tokens(tiny) <= 60 and "not shown" in tiny) or "more similar" in tiny


def test_details_block() -> None:
    d = ElementDetails(
        index=4,
        tag="input",
        type="email",
        rect=R,
        attributes={"id": "email", "class": "a b"},
        selector="#email",
        xpath="/html/body/input[1]",
        parent_text="Email",
        child_count=0,
    )
    text = render_details([d])
    assert text.splitlines()[0] == "[4] input type=email"
    assert "selector: #email" in text and "xpath: /html/body/input[1]" in text and 'class="a b"' in text


def test_nameless_element_shows_its_class_hint() -> None:
    hint = {"class": "reply icon"}
    assert element_line(el(2, "span", attrs=hint)) == '[2] span class="reply icon"'
    assert element_line(el(2, "span", name="Reply", attrs=hint)) == '[2] span "Reply"'
    assert element_line(el(3, "a", href="/home", attrs=hint)) == "[3] link href=/home"
