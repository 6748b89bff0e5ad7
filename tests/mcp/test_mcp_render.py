"""What the MCP answers say, as pure functions of the observation: lean, and never less than the client needs."""

from __future__ import annotations

import re

from kite_browser.agent.browser.observation import (
    ActionResult,
    Counts,
    Effects,
    Element,
    Observation,
    PageSummary,
    Rect,
)
from kite_browser.agent.mcp.render import effects_text, page_update, snapshot_text


def _el(index: int, name: str, tag: str = "button", **kw: object) -> Element:
    rect = Rect(x=0, y=0, width=10, height=10)
    kind = {"a": "link"}.get(tag, tag)
    return Element(index=index, tag=tag, kind=kind, name=name, rect=rect, **kw)  # type: ignore[arg-type]


def _obs(url: str, names: list[str], **summary: object) -> Observation:
    s = PageSummary(url=url, title="t", counts=Counts(), visible_text="some text " * 30, **summary)  # type: ignore[arg-type]
    return Observation(summary=s, elements=[_el(i + 1, n) for i, n in enumerate(names)])


def test_a_changed_page_answers_with_a_diff_when_smaller_and_in_full_after_navigation() -> None:
    names = [f"Button number {i}" for i in range(30)]
    first = page_update(_obs("http://a/", names), None, None)
    assert first.text.startswith("Page: t — http://a/") and first.page_url == "http://a/"
    assert len(first.lines) == 30
    second = page_update(_obs("http://a/", [*names[:20], "Close dialog"]), first.lines, "http://a/")
    assert second.text.startswith("Since your last snapshot") and second.page_url is None
    assert "+ [21] button Close dialog" in second.text and "Button number 3" not in second.text
    assert second.text.endswith("- [22-30]")  # refs no longer listed, as ranges
    moved = page_update(_obs("http://b/", names), first.lines, "http://a/")
    assert moved.text.startswith("Page: t — http://b/") and moved.page_url == "http://b/"
    same = page_update(_obs("http://a/", names), first.lines, "http://a/")
    assert same.text == ""  # the client has this page already


def test_snapshot_reads_in_page_order_without_repeating_labels_or_neighbour_duplicates() -> None:
    els = [
        _el(1, "Kite Shop", "a"),
        _el(2, "Email", "input"),
        _el(3, "seating", "a"),
        _el(4, "seating", "a"),
        _el(5, "Below", "button", in_viewport=False),
    ]
    s = PageSummary(url="http://a/", title="Shop", counts=Counts(), visible_text="ignored", below=1)
    flow: list[str | int] = [1, "Sign up", "Email", 2, "[not a ref] " + "x" * 100, 3, 4, "blue · $12.99"]
    text, lines = snapshot_text(Observation(summary=s, elements=els, flow=flow))
    assert text.split("\n") == [
        "Page: Shop — http://a/",
        "[1] link Kite Shop",
        "Sign up",
        "[2] input Email",  # its label "Email" is not repeated
        "\\[not a ref] " + "x" * 68 + " …",  # page text never looks like an element line
        "[3,4] link seating",
        "blue · $12.99",
        "(page text cut at 200 characters: read gives the whole text, or snapshot with max_text=2000 "
        "shows more here)",  # the long line was cut, and the snapshot says so
        "… 1 below (visible_only=false lists them)",
    ]
    assert set(lines) == {1, 2, 3, 4}
    whole, _ = snapshot_text(Observation(summary=s, elements=els, flow=flow), visible_only=False)
    assert "[5] button Below" in whole and "Sign up" in whole and "below (" not in whole  # text too


def test_effects_do_not_repeat_what_the_snapshot_after_them_says() -> None:
    url = "http://a/shop/product/mug"
    clicked = ActionResult(
        action="click",
        ok=True,
        message='clicked [12] link "Mug" at (762, 259)',
        effects=Effects(navigated=True, url_after=url, added=5, removed=9),
    )
    assert effects_text(clicked, listed=True, page_url=url) == 'clicked [12] link "Mug".'
    alone = effects_text(clicked)
    assert f"now at {url}" in alone and "5 element(s) appeared" in alone and "(762" not in alone
    opened = ActionResult(
        action="navigate", ok=True, message=f"opened {url}", effects=Effects(navigated=True, url_after=url)
    )
    assert effects_text(opened, listed=True, page_url=url) == "opened."
    back = ActionResult(action="goBack", ok=True, message=f"went back to {url}")
    assert effects_text(back, changed=True, listed=True, page_url=url) == "went back."
    assert re.search(r"went back to http", effects_text(back))
