"""Tool schemas are generated from the action models, in a form every provider accepts."""

from __future__ import annotations

import json

import jsonschema
import pytest

from kite_browser.agent.browser.actions import ACTION_MODELS, ACTION_NAMES
from kite_browser.agent.llm.schemas import action_schema, tool_schemas


def test_one_function_per_action_with_model_written_descriptions():
    tools = tool_schemas()
    assert [t["function"]["name"] for t in tools] == list(ACTION_NAMES)
    for tool in tools:
        fn = tool["function"]
        assert tool["type"] == "function"
        assert (
            fn["description"] == " ".join((ACTION_MODELS[fn["name"]].__doc__ or "").split())
            or "Target" in fn["description"]
        )
        assert fn["parameters"]["type"] == "object"
        for prop in fn["parameters"]["properties"].values():
            assert prop.get("description") or prop.get("type"), (fn["name"], prop)


def test_schemas_are_flat_for_picky_providers():
    text = json.dumps(tool_schemas())
    assert "$ref" not in text and "$defs" not in text and '"title"' not in text
    assert '{"type": "null"}' not in text


def test_fields_follow_the_models():
    click = action_schema("click")
    assert set(click["properties"]) == {"index", "selector", "x", "y", "mouse_button", "double"}
    assert click["properties"]["index"] == {
        "minimum": 0,
        "type": "integer",
        "description": "Element index [N] from the latest element list (preferred target).",
    }
    assert click["additionalProperties"] is False
    drag = action_schema("dragDrop")
    assert drag["required"] == ["from", "to"]
    assert set(drag["properties"]["from"]["properties"]) == {"index", "x", "y"}
    assert action_schema("type")["required"] == ["text"]
    assert "exactly one of index, selector" in tool_schemas(["click"])[0]["function"]["description"]


def test_subset_and_unknown_names():
    assert [t["function"]["name"] for t in tool_schemas(["done", "click"])] == ["done", "click"]
    with pytest.raises(KeyError, match="valid: click"):
        tool_schemas(["fly"])


def test_schema_rejects_what_the_model_rejects():
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"index": -1}, action_schema("click"))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"index": 1, "bogus": 1}, action_schema("click"))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({}, action_schema("navigate"))


def test_callers_cannot_corrupt_the_cache():
    action_schema("click")["properties"].clear()
    assert "index" in action_schema("click")["properties"]


def test_three_styles_carry_every_action():
    single = tool_schemas(style="single")
    assert [t["function"]["name"] for t in single] == ["browser_action"]
    fn = single[0]["function"]
    assert fn["parameters"]["properties"]["action"]["enum"] == list(ACTION_NAMES)
    assert all(f"\n{name}(" in fn["description"] for name in ACTION_NAMES)
    assert "click(index, mouse_button?, double?)" in fn["description"]
    compact = tool_schemas(style="compact")
    assert [t["function"]["name"] for t in compact] == list(ACTION_NAMES)
    click = compact[0]["function"]["parameters"]
    assert set(click["properties"]) == {"index", "mouse_button", "double"}  # no selector, no x/y
    assert "description" not in json.dumps(click)
    with_vision = tool_schemas(["click"], style="compact", vision=True)[0]["function"]["parameters"]
    assert set(with_vision["properties"]) == {"index", "x", "y", "mouse_button", "double"}


def test_the_smallest_style_is_the_smallest():
    from kite_browser.agent.browser.tokens import count_tokens

    sizes = {s: count_tokens(json.dumps(tool_schemas(style=s))) for s in ("single", "compact", "full")}
    assert sizes["single"] < sizes["compact"] < sizes["full"], sizes
