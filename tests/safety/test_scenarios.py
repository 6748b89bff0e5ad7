"""The table-driven scenario suite over the bundled shop and account pages (English and Chinese)."""

from __future__ import annotations

from typing import Any

import pytest

from agent.browser.actions import parse_action
from safety.policy import ConfirmLevel, SafetyPolicy
from tests.safety.pages import page
from tests.safety.scenarios import cases

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
