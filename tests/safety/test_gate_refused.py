"""Every face names a refused action the same way: ``GateResult.refused`` (blocked by the policy, or declined)."""

from __future__ import annotations

from kite_browser.safety.confirm import ConfirmAnswer, GateResult
from kite_browser.safety.rules import ConfirmLevel, Decision


def _gate(level: ConfirmLevel, allowed: bool) -> GateResult:
    answer = (
        None if level is ConfirmLevel.BLOCK else ConfirmAnswer(approved=allowed, reason="the user said so")
    )
    return GateResult(allowed=allowed, decision=Decision(level=level, reasons=["why"]), answer=answer)


def test_a_refusal_is_blocked_or_declined_and_an_allowed_action_is_neither() -> None:
    assert _gate(ConfirmLevel.BLOCK, False).refused == "blocked"
    assert _gate(ConfirmLevel.CONFIRM, False).refused == "declined"
    assert _gate(ConfirmLevel.CONFIRM, True).refused is None
    assert _gate(ConfirmLevel.AUTO, True).refused is None
