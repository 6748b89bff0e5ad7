"""The table-driven scenario suite over the bundled shop and account pages (English and Chinese)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urljoin

import pytest

from kite_browser.agent.browser.actions import parse_action
from kite_browser.agent.config import SafetyConfig
from kite_browser.safety.policy import ConfirmLevel, SafetyPolicy
from tests.safety.pages import page
from tests.safety.scenarios import DOMAIN_ROWS, LOOPBACK_ALLOWED, cases, dialog_cases, expand

CASES = cases()


def test_the_suite_is_big_enough() -> None:
    assert len(CASES) >= 40
    assert {c[2] for c in CASES} == {"en", "zh"}
    assert {c[4] for c in CASES} == {"auto", "notify", "confirm", "block"}


@pytest.mark.parametrize(
    ("page_name", "lang", "action", "expected", "kw"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_scenario(
    policy: SafetyPolicy, page_name: str, lang: str, action: dict[str, Any], expected: str, kw: dict[str, Any]
) -> None:
    decision = policy.evaluate(parse_action(action), page(page_name, lang, **kw))
    assert decision.level == ConfirmLevel(expected), decision
    if decision.level is not ConfirmLevel.AUTO:
        assert decision.reasons and decision.rule


DOMAIN_CASES = expand(DOMAIN_ROWS)


@pytest.fixture(scope="module")
def no_loopback_policy(tmp_path_factory: pytest.TempPathFactory) -> SafetyPolicy:
    rules = tmp_path_factory.mktemp("rules") / "rules.yaml"
    rules.write_text("domains:\n  allow_loopback: false\n", encoding="utf-8")
    config = SafetyConfig(allowed_domains=list(LOOPBACK_ALLOWED), rules_file=str(rules))
    return SafetyPolicy.from_config(config)


@pytest.mark.parametrize(
    ("page_name", "lang", "action", "expected", "kw"),
    [c[1:] for c in DOMAIN_CASES],
    ids=[c[0] for c in DOMAIN_CASES],
)
def test_domain_scenario(
    no_loopback_policy: SafetyPolicy,
    policy: SafetyPolicy,
    page_name: str,
    lang: str,
    action: dict[str, Any],
    expected: str,
    kw: dict[str, Any],
) -> None:
    obs = page(page_name, lang, **kw)
    decision = no_loopback_policy.evaluate(parse_action(action), obs)
    assert decision.level == ConfirmLevel(expected), decision
    # the same network policy the browser gets (one DomainPolicy for both layers)
    url = action.get("url") or obs.element(action.get("index", -1)).href  # type: ignore[union-attr]
    target = urljoin(obs.summary.url, url)
    assert no_loopback_policy.domains.allows(target) is (expected != "block")
    if expected == "block":  # with loopback allowed (the default), other loopback hosts pass
        assert policy.domains.allows(target)


DIALOG_CASES = dialog_cases()


@pytest.mark.parametrize(
    ("page_name", "lang", "kind", "message", "expected"),
    [c[1:] for c in DIALOG_CASES],
    ids=[c[0] for c in DIALOG_CASES],
)
def test_dialog_scenario(
    policy: SafetyPolicy, page_name: str, lang: str, kind: str, message: str, expected: str
) -> None:
    decision = policy.evaluate_dialog(kind, message, page(page_name, lang).summary.url)
    assert decision.level == ConfirmLevel(expected), decision
    if expected != "auto":
        assert decision.rule == "sensitive_dialog" and decision.reasons
