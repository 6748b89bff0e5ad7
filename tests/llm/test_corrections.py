"""The correction after a reply that cannot be run is built from the model's own reply (README: "one corrected
example built from the model's own reply"): its action and the values it gave, not a generic placeholder."""

from __future__ import annotations

import pytest

from kite_browser.agent.llm.forgiving import EXAMPLE
from kite_browser.agent.llm.parsing import ParseError, parse_reply


def correction(reply: str) -> str:
    with pytest.raises(ParseError) as caught:
        parse_reply(reply)
    message = caught.value.message
    assert EXAMPLE not in message, message
    return message


@pytest.mark.parametrize(
    ("reply", "example"),
    [
        ('{"type": "click", "index": 5}', '{"action": "click", "index": 5}'),
        (
            '{"tool": "goto", "url": "https://shop.test/"}',
            '{"action": "navigate", "url": "https://shop.test/"}',
        ),
        (
            '{"kind": "type", "index": 4, "text": "blue mug"}',
            '{"action": "type", "index": 4, "text": "blue mug"}',
        ),
        ('{"name": "clik", "index": 3}', '{"action": "click", "index": 3}'),
        ('{"name": "type", "index": 3}', '{"action": "type", "index": 3, "text": <text>}'),
    ],
)
def test_the_correction_keeps_what_the_model_wrote(reply: str, example: str) -> None:
    assert example in correction(reply)


def test_parameters_beside_a_name_are_the_parameters() -> None:
    (action,) = parse_reply('{"name": "click", "index": 3}').actions
    assert action.to_json()["index"] == 3


def test_a_reply_naming_no_action_gets_a_labelled_example() -> None:
    with pytest.raises(ParseError) as caught:
        parse_reply('{"foo": 1}')
    assert f"For example: {EXAMPLE}" in caught.value.message
