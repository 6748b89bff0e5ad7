"""Scoring a step's target against candidates (agent/workflow/match.py): no guess between equals."""

from __future__ import annotations

from kite_browser.agent.browser.observation import Fingerprint
from kite_browser.agent.workflow.match import Ambiguous, Found, NotFound, pick, score

ADD = Fingerprint(
    tag="button",
    name="Add to cart",
    attrs={"id": "add-blue"},
    heading="Sky Blue Espresso Mug",
    neighbours=["Sky Blue Espresso Mug", "$9.50"],
    path="body:1>main:1>form:1>button:1",
)


def test_a_stable_attribute_beats_a_name_alone() -> None:
    other = ADD.model_copy(
        update={"attrs": {"id": "add-red"}, "heading": "Red Mug", "neighbours": ["Red Mug"]}
    )
    got = pick(ADD, [(4, other), (9, ADD)])
    assert isinstance(got, Found) and got.best.index == 9
    assert (score(ADD, other) or 0) < (score(ADD, ADD) or 0)


def test_neighbours_tell_two_same_named_buttons_apart() -> None:
    want = ADD.model_copy(update={"attrs": {}})
    red = want.model_copy(update={"heading": "Red Mug", "neighbours": ["Red Mug", "$7"]})
    got = pick(want, [(3, red), (5, want)])
    assert isinstance(got, Found) and got.best.index == 5


def test_two_candidates_scoring_alike_are_never_guessed() -> None:
    twin = ADD.model_copy()
    got = pick(ADD, [(3, ADD), (7, twin)])
    assert isinstance(got, Ambiguous) and sorted(s.index for s in got.tied) == [3, 7]


def test_nothing_that_names_it_is_no_candidate() -> None:
    unrelated = Fingerprint(tag="button", name="Remove", heading=ADD.heading, path=ADD.path)
    assert score(ADD, unrelated) is None
    got = pick(ADD, [(2, unrelated)])
    assert isinstance(got, NotFound) and got.looked_at == 1


def test_a_different_id_counts_against() -> None:
    moved = ADD.model_copy(update={"attrs": {"id": "something-else"}})
    assert (score(ADD, moved) or 0) < (score(ADD, ADD) or 0) - 15


def test_a_tab_index_is_no_element_target() -> None:
    from kite_browser.agent.browser.actions import Click, SwitchTab
    from kite_browser.agent.browser.fingerprint import element_index

    assert element_index(Click(index=3)) == 3 and element_index({"action": "type", "index": 4}) == 4
    assert (
        element_index(SwitchTab(index=1)) is None
        and element_index({"action": "switchTab", "index": 1}) is None
    )
    assert element_index(Click(selector="#x")) is None
