"""Secrets: sources, resolution limited to domains, redaction; property tests with hypothesis."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from kite_browser.agent.base.errors import KiteError, UsageError
from kite_browser.agent.browser.actions import parse_action
from kite_browser.agent.config import SafetyConfig
from kite_browser.safety.policy import SafetyPolicy
from kite_browser.safety.redact import WHOLE_TOKEN_BELOW
from kite_browser.safety.secrets import SecretStore
from tests.safety.pages import page
from tests.safety.scenarios import cases


def test_sources_and_precedence() -> None:
    cfg = SafetyConfig(secrets={"pw": "from-config", "card@shop.example": "4242"})
    store = SecretStore.from_sources(
        cfg, cli=["pw=from-cli", "api@a.example,b.example=k3y"], env={"KITE_SECRET_TOKEN": "t0k"}
    )
    assert store.names() == ["api", "card", "pw", "token"]
    assert store.resolve("<secret>pw</secret>!", "https://x.org/") == "from-cli!"
    assert store.resolve("<secret>card</secret>", "https://pay.shop.example/c") == "4242"
    assert store.resolve("<secret>api</secret>", "https://b.example/") == "k3y"


@pytest.mark.parametrize("bad", ["novalue", "1abc=x", "a b=x", "name@=x", "empty="])
def test_bad_cli_form_is_a_usage_error_without_the_value(bad: str) -> None:
    with pytest.raises(UsageError) as info:
        SecretStore.from_sources(SafetyConfig(), cli=[bad], env={})
    value = bad.partition("=")[2]
    assert not value or value not in str(info.value)


def test_resolve_errors_never_contain_the_value() -> None:
    store = SecretStore.from_sources(SafetyConfig(secrets={"card@shop.example": "4111111111111111"}), env={})
    with pytest.raises(KiteError) as info:
        store.resolve("<secret>card</secret>", "https://evil.test/")
    assert info.value.type == "secret_not_allowed" and "4111" not in json.dumps(info.value.to_dict())
    with pytest.raises(KiteError) as info:
        store.resolve("<secret>nope</secret>", "https://shop.example/")
    assert info.value.type == "unknown_secret" and "4111" not in str(info.value)


def test_value_inside_markup_is_refused() -> None:
    with pytest.raises(UsageError) as info:
        SecretStore.from_sources(SafetyConfig(), cli=["pin1234=1234"], env={})
    assert "1234'" not in str(info.value).replace("pin1234'", "")


def test_placeholder() -> None:
    assert SecretStore.is_placeholder("<secret>a_b</secret>")
    assert not SecretStore.is_placeholder("x<secret>a</secret>") and not SecretStore.is_placeholder(
        "<secret></secret>"
    )


names = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
values = st.text(min_size=1, max_size=24)
junk = st.recursive(
    st.text(max_size=30) | st.integers() | st.none(),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(
    secrets=st.dictionaries(names, values, min_size=1, max_size=3),
    before=st.text(max_size=40),
    after=st.text(max_size=40),
    obj=junk,
)
def test_a_secret_value_never_survives_redaction(
    secrets: dict[str, str], before: str, after: str, obj: object
) -> None:
    try:
        store = SecretStore.from_sources(SafetyConfig(secrets=secrets), env={})
    except UsageError:
        assume(False)
        return
    vals = list(secrets.values())
    long_ones = [v for v in vals if len(v) >= WHOLE_TOKEN_BELOW]
    text = before + vals[0] + after + "".join(vals) + "\n" + "\n".join(vals) + "\n"
    record = {"message": text, vals[-1]: [obj, text, (vals[0],)], "n": 1}
    strings = [store.redact(text), *_strings(store.redact_obj(record))]
    for v in long_ones:  # a long value never survives, wherever it is
        assert all(v not in s for s in strings)
    for v in vals:  # a short one never survives as a whole token (alone on its line here)
        assert all(f"\n{v}\n" not in s for s in strings)


def _strings(obj: object) -> list[str]:
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for k, v in obj.items() for s in (*_strings(k), *_strings(v))]
    if isinstance(obj, list | tuple):
        return [s for v in obj for s in _strings(v)]
    return []


_POLICIES = [
    SafetyPolicy.from_config(SafetyConfig(blocked_domains=["evil.test"]), secret_names=["card"]) for _ in "ab"
]


@settings(max_examples=150, deadline=None)
@given(order=st.permutations(range(len(cases()))).map(lambda p: p[:6]))
def test_decisions_are_deterministic(order: list[int]) -> None:
    """Same action + observation -> same decision, whatever was evaluated before and by which instance."""
    for idx in order:
        _, name, lang, action, _, kw = cases()[idx]
        results = {
            p.evaluate(parse_action(action), page(name, lang, **kw)).model_dump_json() for p in _POLICIES
        }
        results.add(_POLICIES[0].evaluate(parse_action(action), page(name, lang, **kw)).model_dump_json())
        assert len(results) == 1
