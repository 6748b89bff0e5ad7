"""A refusal says what is true where it happens: when nobody could be asked (no terminal, no confirmer), it says
so and how to allow the action, never "batch mode" outside a batch, nor "the user declined" when no user was
asked. The real gate and Toolbox; the ``kite run`` case is in tests/agent/test_plain_output.py."""

from __future__ import annotations

from kite_browser.agent.browser.actions import parse_action
from kite_browser.agent.config import KiteConfig
from kite_browser.agent.modules import Toolbox
from kite_browser.safety.confirm import BY_CONFIG, BatchConfirmer, ConfirmAnswer, Gate
from kite_browser.safety.policy import SafetyPolicy
from tests.safety.pages import page

PLACE_ORDER = parse_action({"action": "click", "index": 10})


async def test_the_toolbox_without_a_confirmer_says_nobody_could_be_asked() -> None:
    def delete_notes(folder: str) -> str:
        """Delete every note in a folder."""
        return f"deleted {folder}"

    async with Toolbox(KiteConfig(), modules=[], tools=[delete_notes], handle_signals=False) as tb:
        out = await tb.call("delete_notes", {"folder": "old"})
    assert out["error"] == "declined", out
    message = out["message"]
    assert "batch" not in message and "the user declined" not in message, message
    assert "nobody could be asked (no confirmer was given)" in message, message
    assert "safety.approve: [confirm]" in message, message  # how to allow it (a user tool: by level only)


async def test_a_batch_refusal_names_both_ways_to_allow(policy: SafetyPolicy) -> None:
    result = await Gate(policy, BatchConfirmer()).check(PLACE_ORDER, page("checkout"))
    assert not result.allowed
    assert result.message.startswith(
        "not confirmed: nobody is asked in a batch run; to allow it: --approve confirm or --approve click"
    ), result.message


async def test_a_person_who_said_no_is_still_the_user_declining(policy: SafetyPolicy) -> None:
    class No:
        async def confirm(self, request: object) -> ConfirmAnswer:
            return ConfirmAnswer(approved=False, reason="not today")

        async def notify(self, request: object) -> None:
            return None

    result = await Gate(policy, No()).check(PLACE_ORDER, page("checkout"))
    assert result.message.startswith("the user declined: not today (it needs confirmation because ")


def test_config_callers_are_told_the_setting() -> None:
    assert BY_CONFIG.format("confirm") == "safety.approve: [confirm]"
