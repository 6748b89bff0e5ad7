"""Property tests: any reply → actions or ParseError; valid actions round-trip; schemas accept actions."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kite_browser.agent.browser.actions import ACTION_MODELS, offered_fields, parse_action
from kite_browser.agent.llm.client import LLMReply, ToolCall
from kite_browser.agent.llm.parsing import ParseError, parse_reply
from kite_browser.agent.llm.schemas import action_schema

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

coord = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6, max_value=1e6)
index = st.integers(min_value=0, max_value=100_000)
text = st.text(max_size=40)
nonempty = st.text(min_size=1, max_size=40)
drag_end = st.one_of(
    index.map(lambda i: {"index": i}), st.tuples(coord, coord).map(lambda p: {"x": p[0], "y": p[1]})
)

# One strategy per field name of the action models (a test below checks none is missing).
FIELD_STRATEGIES: dict[str, st.SearchStrategy[Any]] = {
    "mouse_button": st.sampled_from(["left", "right", "middle"]),
    "double": st.booleans(),
    "text": text,
    "append": st.booleans(),
    "direction": st.sampled_from(["up", "down", "left", "right"]),
    "amount": st.integers(min_value=1, max_value=100_000),
    "question": st.text(min_size=1, max_size=300).filter(str.strip),
    "url": nonempty,
    "full_page": st.booleans(),
    "ms": st.integers(min_value=0, max_value=30_000),
    "value": st.one_of(text, st.lists(text, max_size=3)),
    "key": nonempty,
    "modifiers": st.lists(st.sampled_from(["ctrl", "alt", "shift", "meta"]), max_size=4),
    "from": drag_end,
    "to": drag_end,
    "filePath": nonempty,
    "code": nonempty,
    "type": st.sampled_from(["button", "input", "link", "select", "image", "all"]),
    "visible": st.booleans(),
    "indices": st.lists(st.integers(min_value=-5, max_value=10_000), min_size=1, max_size=50),
    "success": st.booleans(),
    "answer": text,
    "data": st.recursive(
        st.none() | st.booleans() | st.integers() | text,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
        max_leaves=8,
    ),
    "query": nonempty,
    "page": st.integers(min_value=1, max_value=1000),
}
TARGET_FIELDS = {"index", "selector", "x", "y"}


def _fields(name: str) -> set[str]:
    return set(offered_fields(ACTION_MODELS[name]))


def _target(name: str) -> st.SearchStrategy[dict[str, Any]]:
    fields = _fields(name)
    options: list[st.SearchStrategy[dict[str, Any]]] = []
    if "index" in fields:
        options.append(index.map(lambda i: {"index": i}))
    if "selector" in fields:
        options.append(nonempty.map(lambda s: {"selector": s}))
    if {"x", "y"} <= fields:
        options.append(st.tuples(coord, coord).map(lambda p: {"x": p[0], "y": p[1]}))
    if name == "switchTab":
        options = [index.map(lambda i: {"index": i}), nonempty.map(lambda u: {"url": u})]
    if name in ("type", "scroll", "screenshot"):
        options.append(st.just({}))
    return st.one_of(options) if options else st.just({})


@st.composite
def actions(draw: st.DrawFn) -> Any:
    name = draw(st.sampled_from(sorted(ACTION_MODELS)))
    model = ACTION_MODELS[name]
    data: dict[str, Any] = {"action": name, **draw(_target(name))}
    for alias, field in offered_fields(model).items():
        if alias in TARGET_FIELDS | {"action", "url"} and name == "switchTab":
            continue
        if alias in TARGET_FIELDS or alias == "action":
            continue
        if field.is_required() or draw(st.booleans()):
            data[alias] = draw(FIELD_STRATEGIES[alias])
    return parse_action(data)


def test_every_field_has_a_strategy():
    for name in ACTION_MODELS:
        assert _fields(name) - TARGET_FIELDS - {"url"} <= set(FIELD_STRATEGIES), name


@FAST
@given(st.text(max_size=300))
def test_any_text_gives_actions_or_parse_error(reply):
    try:
        parsed = parse_reply(reply)
    except ParseError as exc:
        assert exc.message
    else:
        assert parsed.actions


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
action_like = st.fixed_dictionaries(
    {"action": st.sampled_from([*ACTION_MODELS, "browser_action", "clik", ""]) | json_values},
    optional={"params": json_values, "index": json_values, "thought": json_values, "text": json_values},
)


@FAST
@given(
    st.one_of(action_like, st.lists(action_like, max_size=3), json_values),
    st.sampled_from(["", "x ", "```json\n"]),
)
def test_any_json_shaped_reply_gives_actions_or_parse_error(value, prefix):
    try:
        parse_reply(prefix + json.dumps(value))
    except ParseError:
        pass


@FAST
@given(
    st.lists(st.tuples(st.text(max_size=20), st.text(max_size=60)), max_size=4),
    st.none() | st.text(max_size=50),
)
def test_any_tool_calls_give_actions_or_parse_error(calls, content):
    reply = LLMReply(
        content=content,
        tool_calls=[ToolCall(id=str(i), name=n, arguments=a) for i, (n, a) in enumerate(calls)],
    )
    try:
        parse_reply(reply)
    except ParseError:
        pass


@FAST
@given(actions())
def test_action_round_trips_through_every_reply_form(action):
    flat = action.to_json()
    params = action.params()
    forms = [
        f"```json\n{json.dumps(flat)}\n```",
        f"Here is my step.\n```json\n{json.dumps({'action': action.action, 'params': params})}\n```",
        json.dumps([flat]),
        LLMReply(tool_calls=[ToolCall(id="1", name=action.action, arguments=json.dumps(params))]),
        LLMReply(
            tool_calls=[
                ToolCall(
                    id="1",
                    name="browser_action",
                    arguments=json.dumps({"action": action.action, "params": params}),
                )
            ]
        ),
    ]
    for form in forms:
        assert parse_reply(form).actions == [action]


@FAST
@given(actions())
def test_generated_schema_accepts_the_actions_own_json(action):
    jsonschema.validate(action.params(), action_schema(action.action))


def test_schemas_are_valid_json_schema():
    for name in ACTION_MODELS:
        jsonschema.Draft202012Validator.check_schema(action_schema(name))
