"""A click's ``double`` and ``mouse_button`` are in the step's reply schema only when the task asks for them:
the 1.5B model double-clicked toggles that had not changed (each double click opens and closes a section)."""

from __future__ import annotations

import jsonschema
import pytest

from kite_browser.agent.browser.observation import Element, Observation, PageSummary, Rect
from kite_browser.agent.llm.reply_schema import TYPE_CHARS, reply_schema


def click_fields(task: str) -> set[str]:
    obs = Observation(
        summary=PageSummary(url="http://127.0.0.1:1/"),
        elements=[Element(index=1, tag="button", name="Section #1", rect=Rect(x=0, y=0, width=9, height=9))],
    )
    [click] = [
        v
        for v in reply_schema(obs, ["click"], task=task)["properties"]["actions"]["items"]["anyOf"]
        if v["properties"]["action"]["const"] == "click"
    ]
    return set(click["properties"]) - {"action"}


@pytest.mark.parametrize(
    ("task", "fields"),
    [
        ("Expand the sections and click the link euismod", {"target"}),
        ("Double-click the box", {"target", "double"}),
        ("Right-click the file to open its menu", {"target", "mouse_button"}),
        ("双击这个按钮", {"target", "double"}),
        ("Write a copyright notice", {"target"}),  # "right" only as a word of its own
    ],
)
def test_click_modifiers_only_when_the_task_asks(task: str, fields: set[str]) -> None:
    assert click_fields(task) == fields


def test_one_type_takes_at_most_a_few_hundred_characters() -> None:
    """Recorded: the model typed the bullets a password field showed until its reply hit the output limit and
    was rejected as cut off; the schema now ends the text, so the reply ends and parses."""
    obs = Observation(
        summary=PageSummary(url="http://127.0.0.1:1/"),
        elements=[Element(index=3, tag="input", name="Search", rect=Rect(x=0, y=0, width=9, height=9))],
    )
    schema = reply_schema(obs, ["type"])
    reply = {
        "thought": "type it",
        "actions": [{"action": "type", "target": "input: Search [3]", "text": "mug"}],
    }
    jsonschema.validate(reply, schema)
    reply["actions"][0]["text"] = "•" * (TYPE_CHARS + 1)
    with pytest.raises(jsonschema.ValidationError, match="is too long"):
        jsonschema.validate(reply, schema)
