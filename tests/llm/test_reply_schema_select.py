"""A ``select``'s value in the reply schema is one of that dropdown's options, minus the one selected: the
1.5B model tried a radio button's label on a nearby select, and re-chose the value already selected."""

from __future__ import annotations

from typing import Any

import jsonschema

from kite_browser.agent.browser.observation import Element, Observation, PageSummary, Rect
from kite_browser.agent.llm.reply_schema import reply_schema


def _select(index: int, name: str, options: list[str], value: str, more: int = 0) -> Element:
    box = Rect(x=0, y=0, width=9, height=9)
    return Element(
        index=index, tag="select", name=name, options=options, value=value, more_options=more, rect=box
    )


def _selects(obs: Observation) -> list[dict[str, Any]]:
    items = reply_schema(obs, ["select"])["properties"]["actions"]["items"]["anyOf"]
    return [v for v in items if v["properties"]["action"]["const"] == "select"]


OBS = Observation(
    summary=PageSummary(url="http://127.0.0.1:1/"),
    elements=[
        _select(1, "Colour", ["Any", "Blue", "Red"], "Any"),
        _select(2, "Size", ["S", "M", "L", "XL", "XXL", "3XL", "4XL", "5XL"], "M", more=4),
        _select(3, "Only", ["One"], "One"),
    ],
)


def test_each_dropdown_offers_its_own_options_but_the_selected_one() -> None:
    by_target = {tuple(v["properties"]["target"]["enum"]): v for v in _selects(OBS)}
    colour = by_target[("select: Colour [1]",)]
    assert colour["properties"]["value"] == {"type": "string", "enum": ["Blue", "Red"]}
    # more options than listed: the value stays free text for that dropdown
    assert by_target[("select: Size [2]",)]["properties"]["value"].get("enum") is None
    # nothing left to choose: no select on it at all
    assert not any("select: Only [3]" in t for t in by_target)
    schema = reply_schema(OBS, ["select"])
    ok = {"thought": "t", "actions": [{"action": "select", "target": "select: Colour [1]", "value": "Red"}]}
    jsonschema.validate(ok, schema)
    for value in ("Any", "Medium", "S"):  # the selected one, a made-up one, another dropdown's
        bad = {
            "thought": "t",
            "actions": [{"action": "select", "target": "select: Colour [1]", "value": value}],
        }
        try:
            jsonschema.validate(bad, schema)
        except jsonschema.ValidationError:
            continue
        raise AssertionError(f"{value!r} was allowed for Colour")
