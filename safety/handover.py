"""Handing the browser to a person and taking it back: what a face offers when the model (or Kite, on a CAPTCHA,
a second-factor field or a task it keeps failing) needs someone to do what no agent may or can.

The person is reached the way confirmations reach them: a face's ``Confirmer`` that can hand over also has
``hand_over`` (the TUI's modal, the terminal's prompt, the panel's interactive live view). A confirmer without
it (batch and eval runs, MCP) means nobody can take over: the action answers ``needs_human`` and the run ends
with that reason, never waiting.
"""

from __future__ import annotations

from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel, Field

Why = Literal["asked", "captcha", "second_factor", "stuck"]


class HandOverRequest(BaseModel):
    """What the person is asked to do, on which page."""

    question: str
    url: str = ""
    why: Why = "asked"

    def describe(self) -> str:
        return f"{self.question} (on {self.url})" if self.url else self.question


class HandBack(BaseModel):
    """How the person handed the browser back: ``done`` (they did it) or not (they could not, or left)."""

    done: bool
    reason: str = Field("", description="Why not, in the person's face's words (never what they typed).")


@runtime_checkable
class TakesOver(Protocol):
    """A confirmer through which a person can take the browser over."""

    async def hand_over(self, request: HandOverRequest) -> HandBack: ...


def person_of(confirmer: object) -> TakesOver | None:
    """The person behind ``confirmer``, when its face lets one take over; None otherwise."""
    return confirmer if isinstance(confirmer, TakesOver) else None
