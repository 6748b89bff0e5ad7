"""The CDP key events the type action sends per character (no browser needed)."""

from __future__ import annotations

from kite_browser.agent.browser.exec.cdp import key_events


def test_letters_digits_and_punctuation_are_real_key_presses() -> None:
    (m1, down), (m2, up) = key_events("A")
    assert m1 == m2 == "Input.dispatchKeyEvent"
    assert down == {
        "type": "keyDown", "key": "A", "code": "KeyA", "windowsVirtualKeyCode": 65, "text": "A", "unmodifiedText": "A",
    }  # fmt: skip
    assert up == {"type": "keyUp", "key": "A", "code": "KeyA", "windowsVirtualKeyCode": 65}
    assert key_events("7")[0][1]["code"] == "Digit7" and key_events("7")[0][1]["windowsVirtualKeyCode"] == 55
    assert key_events("@")[0][1]["code"] == "Digit2" and key_events(" ")[0][1]["code"] == "Space"


def test_newline_is_enter_and_other_characters_are_inserted() -> None:
    (_, down), (_, up) = key_events("\n")
    assert down["key"] == "Enter" and down["text"] == "\r" and up["type"] == "keyUp"
    assert "text" not in key_events("\t")[0][1]  # Tab moves the focus, it types nothing
    assert key_events("é") == [("Input.insertText", {"text": "é"})]
    assert key_events("😀") == [("Input.insertText", {"text": "😀"})]
