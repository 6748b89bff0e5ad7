"""The reply parser: tool calls, the single browser_action tool, and the tolerant JSON fallback."""

from __future__ import annotations

import pytest

from kite_browser.agent.browser.actions import Click, Done, PressKey, Type
from kite_browser.agent.llm.client import LLMReply, ToolCall
from kite_browser.agent.llm.parsing import ParseError, parse_reply

CLICK3 = Click(index=3)


@pytest.mark.parametrize(
    "text",
    [
        '```json\n{"action": "click", "params": {"index": 3}}\n```',
        '```\n{"action": "click", "params": {"index": 3}}\n```',
        '```JSON\n{"action": "click", "index": 3}\n```',
        '{"action": "click", "params": {"index": 3}}',
        'I will click the button.\n{"action": "click", "index": 3}',
        'Clicking now:\n```json\n{"action": "click", "params": {"index": 3},}\n```\nDone.',
        "{'action': 'click', 'params': {'index': 3}}",
        '{"action": "click", // the add button\n "params": {"index": 3} /* first */}',
        '<tool_call>\n{"name": "click", "arguments": {"index": 3}}\n</tool_call>',
        '{"click": {"index": 3}}',
        '{"action": "Click", "params": {"index": "3"}}',
        '```json\n{"action": "click", "params": {"index": 3}}',  # unterminated fence
        '{"name": "browser_action", "arguments": {"action": "click", "params": {"index": 3}}}',
    ],
)
def test_fallback_forms_give_the_same_click(text):
    parsed = parse_reply(text)
    assert parsed.actions == [CLICK3]
    assert parsed.source == "json"


def test_thought_field_next_to_the_action():
    parsed = parse_reply(
        '```json\n{"thought": "the cart is at 7", "action": "click", "params": {"index": 7}}\n```'
    )
    assert parsed.thought == "the cart is at 7"
    assert parsed.actions == [Click(index=7)]


def test_prose_before_the_json_is_the_thought():
    parsed = parse_reply(
        'The search box is [2].\n```json\n{"action": "type", "params": {"index": 2, "text": "x"}}\n```'
    )
    assert parsed.thought == "The search box is [2]."


def test_a_list_of_actions_in_order():
    text = """```json
[{"action": "type", "params": {"index": 1, "text": "kite", "clear": true}},
 {"action": "press_key", "params": {"key": "Enter"}},]
```"""
    parsed = parse_reply(text)
    assert parsed.actions == [Type(index=1, text="kite", clear=True), PressKey(key="Enter")]


def test_actions_wrapper_and_two_fenced_blocks():
    wrapped = parse_reply('{"thought": "t", "actions": [{"action": "goBack"}, {"action": "refresh"}]}')
    assert [a.action for a in wrapped.actions] == ["goBack", "refresh"]
    assert wrapped.thought == "t"
    two = parse_reply('```json\n{"action": "goBack"}\n```\nthen\n```json\n{"action": "refresh"}\n```')
    assert [a.action for a in two.actions] == ["goBack", "refresh"]


def test_backticks_inside_a_string_do_not_split_the_block():
    text = '```json\n{"action": "type", "params": {"index": 1, "text": "a ``` b {\\"action\\": \\"done\\"}"}}\n```'
    assert parse_reply(text).actions == [Type(index=1, text='a ``` b {"action": "done"}')]


def test_tool_calls_in_order_with_content_as_thought():
    reply = LLMReply(
        content="Search, then submit.",
        tool_calls=[
            ToolCall(id="a", name="type", arguments='{"index": 1, "text": "kite"}'),
            ToolCall(id="b", name="pressKey", arguments='{"key": "Enter"}'),
        ],
    )
    parsed = parse_reply(reply)
    assert parsed.source == "tool_calls"
    assert parsed.actions == [Type(index=1, text="kite"), PressKey(key="Enter")]
    assert parsed.thought == "Search, then submit."


def test_single_tool_form_and_sloppy_arguments():
    calls = [
        ToolCall(id="1", name="browser_action", arguments='{"action": "click", "params": {"index": 3}}'),
        ToolCall(id="2", name="goBack", arguments=""),
        ToolCall(id="3", name="done", arguments="{'success': true, 'answer': '42',}"),
        ToolCall(id="4", name="click", arguments='"{\\"index\\": 3}"'),  # double-encoded
    ]
    parsed = parse_reply(LLMReply(tool_calls=calls))
    assert [a.action for a in parsed.actions] == ["click", "goBack", "done", "click"]
    assert parsed.actions[2] == Done(success=True, answer="42")
    assert parsed.actions[3] == CLICK3


def test_max_actions_keeps_the_first_and_counts_the_rest():
    calls = [ToolCall(id=str(i), name="click", arguments=f'{{"index": {i}}}') for i in range(50)]
    parsed = parse_reply(LLMReply(tool_calls=calls), max_actions=10)
    assert [a.index for a in parsed.actions] == list(range(10))
    assert parsed.dropped == 40


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"action": "clik", "params": {"index": 1}}', ["Unknown action 'clik'", "click, type, scroll"]),
        ('{"action": "click", "params": {}}', ["exactly one target", "click(index, mouse_button?, double?)"]),
        ('{"action": "type", "params": {"index": 1}}', ["missing required parameter 'text'"]),
        ('{"action": "type", "params": {"index": 1, "force": true}}', ["missing required parameter 'text'"]),
        ('{"action": "wait", "params": {"ms": -5}}', ["'ms'", "wait(ms)"]),
        ("I am not sure what to do.", ["No action found", '```json block: {"action": "<name>"']),
        ("", ["empty"]),
        ('{"foo": 1}', ['needs an "action" field']),
        ("[1, 2]", ["No action found"]),
    ],
)
def test_errors_tell_the_model_what_is_wrong_and_what_is_valid(reply, expected):
    with pytest.raises(ParseError) as info:
        parse_reply(reply)
    for fragment in expected:
        assert fragment in info.value.message
    assert info.value.to_dict()["error"] == "parse_error"
    assert "click" in info.value.to_dict()["valid_actions"]


def test_unknown_tool_name_is_a_parse_error():
    with pytest.raises(ParseError, match="Unknown action 'open_page'"):
        parse_reply(LLMReply(tool_calls=[ToolCall(id="1", name="open_page", arguments="{}")]))


def test_second_action_invalid_is_named_by_position():
    with pytest.raises(ParseError, match="action #2"):
        parse_reply('[{"action": "goBack"}, {"action": "click", "params": {"index": "x"}}]')


def test_a_megabyte_reply_ends_quickly():
    import time

    started = time.monotonic()
    with pytest.raises(ParseError):
        parse_reply("{" * 1_000_000)
    with pytest.raises(ParseError):
        parse_reply("blah " * 200_000)
    assert time.monotonic() - started < 10


@pytest.mark.parametrize(
    ("name", "arguments", "example"),
    [
        ("browser_action", "I click [5]", '{"action": "click", "index": 5}'),
        ("click", "the blue mug", '{"action": "click", "index": <index>}'),
    ],
)
def test_plain_text_arguments_get_one_example_of_the_action_meant(name, arguments, example):
    reply = LLMReply(tool_calls=[ToolCall(id="c1", name=name, arguments=arguments)])
    with pytest.raises(ParseError) as info:
        parse_reply(reply)
    message = str(info.value)
    assert "not valid JSON" in message and message.endswith(f"e.g. {example}"), message
