"""Actions of one reply that would change nothing are dropped before they run, and the reply goes on: a
``type`` of the value the field already holds, and a second identical action after the first verifiably
changed nothing. A small model can fill one reply with the same ineffective action many times over, and
running each copy only spends steps and time on a page that stays as it was."""

from __future__ import annotations

from kite_browser.agent.base.fence import defuse
from kite_browser.agent.browser.exec.base import NO_EFFECT
from kite_browser.agent.browser.observation import ActionResult, Effects
from kite_browser.agent.policies.base import Policy, Proposed
from kite_browser.agent.policies.loop_guard import said_no_effect

DROPPED = "dropped"
"""The key in a dropped action's data (with the reason)."""


class NoOps(Policy):
    """Drops the reply's actions that, by what the page and the reply already show, would change nothing."""

    name = "no_ops"
    reason = "An action whose effect is already there, or that just changed nothing, changes nothing again."

    async def refuse(self, proposed: Proposed) -> ActionResult | None:
        action, element = proposed.action, proposed.element
        data = action.to_json()
        if any(a.to_json() == data and said_no_effect(r) for a, r in proposed.earlier):
            return _dropped(action.action, "not run: the same action earlier in this reply changed nothing")
        if action.action != "type" or element is None or data.get("append"):
            return None
        text = str(data.get("text", ""))
        if "<secret>" in text or (element.type or "").lower() == "password":
            return None  # a secret's value is not what the reply says; a password field shows dots
        holds = element.value
        for earlier, result in proposed.earlier:  # a type earlier in this reply set the field
            if earlier.action == "type" and earlier.target_index == element.index and result.ok:
                holds = result.effects.value if result.effects.value is not None else holds
        if holds is not None and holds == text:
            return _dropped("type", f'not run: the field already holds "{defuse(text[:60])}"')
        return None


def _dropped(action: str, message: str) -> ActionResult:
    """An action not run because it would change nothing: no failure, and the reply goes on."""
    return ActionResult(
        action=action,
        ok=True,
        message=message,
        effects=Effects(changed=False),
        data={NO_EFFECT: True, DROPPED: message},
    )
