"""Forgiving parsing: the small model's habits are run with a note, what remains gets ONE corrected example."""

from __future__ import annotations

import pytest

from kite_browser.agent.browser.actions import Click, Done, PressKey, Scroll, Select, Type
from kite_browser.agent.llm.client import LLMReply, ToolCall
from kite_browser.agent.llm.parsing import ParseError, parse_reply


@pytest.mark.parametrize(
    ("reply", "action", "note"),
    [
        # extra fields a 1.5B model adds to a click
        ('{"action": "click", "index": 3, "text": "Add to cart"}', Click(index=3), "ignored text="),
        ('{"action": "click", "index": 3, "button": "Close"}', Click(index=3), 'ignored button="Close"'),
        ('{"action": "click", "index": 3, "force": true}', Click(index=3), "ignored force=true"),
        # two targets: the index wins
        ('{"action": "click", "index": 3, "selector": "#close"}', Click(index=3), "ignored selector"),
        (
            '{"action": "type", "index": 3, "selector": "input", "text": "a"}',
            Type(index=3, text="a"),
            "used index 3",
        ),
        # the mouse-button parameter's old name
        (
            '{"action": "click", "index": 3, "button": "right"}',
            Click(index=3, mouse_button="right"),
            "'mouse_button'",
        ),
        # near names
        (
            '{"action": "input_text", "index": "[3]", "value": "abc"}',
            Type(index=3, text="abc"),
            "read action 'input_text' as 'type'; read 'value' as 'text'",
        ),
        (
            '{"action": "select", "index": 4, "option": "Blue"}',
            Select(index=4, value="Blue"),
            "'option' as 'value'",
        ),
        ('{"action": "scroll_down"}', Scroll(direction="down"), "as 'scroll'"),
        (
            '{"action": "pressKey", "index": 4, "key": "Enter", "text": "x"}',
            PressKey(key="Enter", index=4),  # the key is pressed on that element (focused first)
            "ignored text=",
        ),
    ],
)
def test_a_valid_action_with_extra_or_misnamed_fields_runs_with_a_note(reply, action, note):
    parsed = parse_reply(reply)
    assert parsed.actions == [action]
    assert note in parsed.notes[0]


@pytest.mark.parametrize(
    "reply",
    [
        '```json\n{"action": "done", "success": True, "answer": None}\n```',
        "{'action': 'done', 'success': True, 'answer': None,}",
        LLMReply(tool_calls=[ToolCall(id="1", name="done", arguments='{"success": True, "answer": None}')]),
    ],
)
def test_python_literals_are_repaired(reply):
    parsed = parse_reply(reply)
    assert parsed.actions == [Done(success=True, answer="")]
    assert parsed.notes == [""]  # a null for an optional field is just "not set"


def test_a_clean_reply_has_no_notes():
    parsed = parse_reply('[{"action": "click", "index": 3}, {"action": "pressKey", "key": "Enter"}]')
    assert parsed.notes == ["", ""]


def test_tool_calls_are_forgiven_the_same_way():
    calls = [ToolCall(id="1", name="click", arguments='{"index": 7, "text": "x", "double": False}')]
    parsed = parse_reply(LLMReply(tool_calls=calls))
    assert parsed.actions == [Click(index=7)] and "ignored text=" in parsed.notes[0]


@pytest.mark.parametrize(
    ("reply", "example"),
    [
        (
            '{"action": "type", "index": 5, "append": false}',
            '{"action": "type", "index": 5, "text": <text>, "append": false}',
        ),
        ('{"action": "click", "text": "Submit"}', '{"action": "click", "index": <index>}'),
        ('{"action": "clik", "index": 3}', '{"action": "click", "index": 3}'),
        (
            '[{"action": "goBack"}, {"action": "select", "index": 2}]',
            '{"action": "select", "index": 2, "value": <value>}',
        ),
        ("I will click the Submit button [12] now.", '{"action": "click", "index": 12}'),
    ],
)
def test_what_cannot_be_repaired_shows_one_example_built_from_the_reply(reply, example):
    with pytest.raises(ParseError) as info:
        parse_reply(reply)
    message = info.value.message
    assert example in message, message
    assert message.count('{"action": "') == 1 + message.count('{"action": "<name>"'), "one example only"


def test_an_example_in_the_prompt_cannot_be_run_verbatim():
    """The JSON fallback's example must not be copyable into a real task (the small model copied it)."""
    import re

    from kite_browser.agent.run.prompt import PromptBuilder

    system = PromptBuilder("any task", function_calling=False).system()
    blocks = re.findall(r"```json\n(.*?)\n```", system, re.S)
    assert blocks, "the JSON fallback shows the answer's form"
    for block in blocks:
        with pytest.raises(ParseError):
            parse_reply(f"```json\n{block}\n```")
