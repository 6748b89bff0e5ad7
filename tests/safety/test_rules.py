"""Loading rules: the bundled file, user overrides, and bad files rejected with the line at fault."""

from __future__ import annotations

from pathlib import Path

import pytest

from kite_browser.agent.base.errors import ConfigError
from kite_browser.agent.browser.actions import parse_action
from kite_browser.agent.config import SafetyConfig
from kite_browser.safety.policy import ConfirmLevel, SafetyPolicy
from tests.safety.pages import page


def _policy(tmp_path: Path, text: str, **cfg: object) -> SafetyPolicy:
    f = tmp_path / "rules.yaml"
    f.write_text(text, encoding="utf-8")
    return SafetyPolicy.from_config(SafetyConfig(rules_file=str(f), **cfg))  # type: ignore[arg-type]


def test_bundled_rules_load_with_the_spec_patterns() -> None:
    rules = SafetyPolicy.from_config(SafetyConfig()).rules
    assert {"checkout", "pay/", "wire"} <= set(rules.url_patterns)
    assert {"永久删除", "cannot be undone"} <= set(rules.keywords)
    assert rules.always_confirm == []  # executeJS / uploadFile confirm by their registry entry


def test_default_levels_come_from_the_action_registry() -> None:
    policy = SafetyPolicy.from_config(SafetyConfig())
    js = policy.evaluate(parse_action({"action": "executeJS", "code": "1"}), None)
    upload = policy.evaluate(parse_action({"action": "uploadFile", "index": 1, "filePath": "/tmp/a"}), None)
    scroll = policy.evaluate(parse_action({"action": "scroll", "direction": "down"}), None)
    assert js.level == upload.level == ConfirmLevel.CONFIRM and js.rule == "always_confirm"
    assert scroll.level == ConfirmLevel.AUTO


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("url_patterns:\n  - ok\n  - '(unclosed'\n", 3, "invalid regular expression"),
        ("levels:\n  sensitive_click: maybe\n", 2, "levels.sensitive_click"),
        ("rules:\n  - name: x\n    level: auto\n    when:\n      action: explode\n", 5, "unknown action"),
        ("always_confirm: [executeJS]\nbogus_key: 1\n", 2, "bogus_key"),
        ("keywords: [a, b\nlevels: {}\n", 2, "invalid YAML"),
    ],
)
def test_bad_rules_file_names_file_and_line(tmp_path: Path, text: str, line: int, fragment: str) -> None:
    with pytest.raises(ConfigError) as info:
        _policy(tmp_path, text)
    msg = str(info.value)
    assert "rules.yaml" in msg and f"line {line}" in msg and fragment in msg


def test_user_override_lowers_execjs_on_one_domain_only(tmp_path: Path) -> None:
    p = _policy(
        tmp_path,
        "rules:\n  - {name: trusted, when: {action: executeJS, domain: 127.0.0.1}, level: auto, override: true}\n",
    )
    js = parse_action({"action": "executeJS", "code": "1"})
    assert p.evaluate(js, page("home")).level is ConfirmLevel.AUTO
    other = page("home").model_copy(
        update={"summary": page("home").summary.model_copy(update={"url": "https://x.org/"})}
    )
    assert p.evaluate(js, other).level is ConfirmLevel.CONFIRM


def test_user_rule_raises_by_element_text_and_cannot_lower_a_blocked_domain(tmp_path: Path) -> None:
    p = _policy(
        tmp_path,
        "rules:\n"
        "  - {name: ask-add, when: {action: click, element_text: 'add to cart|加入购物车'}, level: confirm}\n"
        "  - {name: all-auto, when: {action: navigate}, level: auto, override: true}\n",
        blocked_domains=["evil.test"],
    )
    for lang in ("en", "zh"):
        d = p.evaluate(parse_action({"action": "click", "index": 4}), page("product", lang))
        assert (d.level, d.rule) == (ConfirmLevel.CONFIRM, "ask-add")
    nav = p.evaluate(parse_action({"action": "navigate", "url": "https://evil.test/"}), page("home"))
    assert nav.level is ConfirmLevel.BLOCK
    assert (
        p.evaluate(parse_action({"action": "navigate", "url": "https://ok.org/"}), page("home")).level
        is ConfirmLevel.AUTO
    )


def test_levels_map_changes_a_builtin_check(tmp_path: Path) -> None:
    p = _policy(tmp_path, "levels:\n  destructive_click: confirm\n")
    assert (
        p.evaluate(parse_action({"action": "click", "index": 5}), page("cart")).level is ConfirmLevel.CONFIRM
    )


def test_press_key_on_an_index_is_judged_on_that_element() -> None:
    """pressKey took an index this round (the key goes to that element): Enter or Space on a button is judged
    as a click on that button, on a checkout page (confirm) as on a product page; a letter in a field is not."""
    from tests.safety.pages import _obs, el

    policy = SafetyPolicy.from_config(SafetyConfig())
    levels = {}
    for path in ("/shop/checkout", "/shop/product/mug"):
        obs = _obs("en", path, "Shop", "A mug", [el(2, "input", "Note"), el(3, "button", "Place order")])
        click = policy.evaluate(parse_action({"action": "click", "index": 3}), obs)
        for key in ("Enter", " "):
            pressed = policy.evaluate(parse_action({"action": "pressKey", "key": key, "index": 3}), obs)
            assert pressed.level == click.level, (path, key, pressed, click)
        levels[path] = click.level
    assert levels == {"/shop/checkout": ConfirmLevel.CONFIRM, "/shop/product/mug": ConfirmLevel.AUTO}


def test_a_keyword_a_user_writes_in_capitals_is_found_in_any_case(tmp_path: Path) -> None:
    # The keywords and the page's text are both folded before the (case-exact) search.
    policy = _policy(tmp_path, "keywords: [Zahlungspflichtig, ÜBERWEISUNG]\n")
    home = page("home")
    for text, found in [
        ("Jetzt ZAHLUNGSPFLICHTIG bestellen", "zahlungspflichtig"),
        ("Ihre Überweisung", "uberweisung"),  # folded: its combining mark removed, as in the rule
        ("Ihre U\u0308berweisung", "uberweisung"),  # the mark written apart
        ("Ihre Über\u2063weisung", "uberweisung"),  # split by an invisible separator
        ("ᴢᴀʜʟᴜɴɢꜱᴘꜰʟɪᴄʜᴛɪɢ", "zahlungspflichtig"),  # small capitals
    ]:
        obs = home.model_copy(update={"summary": home.summary.model_copy(update={"visible_text": text})})
        assert policy.page_sensitivity(obs) == f"the page mentions {found!r}"
    assert policy.page_sensitivity(home) is None
