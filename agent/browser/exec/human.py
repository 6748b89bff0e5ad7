"""askHuman: the model hands the browser to a person (a CAPTCHA, a second factor, a login only the user may type,
a page it cannot figure out) and gets it back. The environment runs it (``BrowserEnv``: it knows the run's
person, through the confirmer); the unit here only answers when no environment does."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from kite_browser.agent.base.errors import ActionError
from kite_browser.agent.browser.exec.base import ExecContext, Outcome
from kite_browser.agent.browser.exec.spec import ActionModel, define_action
from kite_browser.agent.browser.observation import ActionResult

NEEDS_HUMAN = "needs_human"


class AskHuman(ActionModel):
    """Let the user do what you must not or cannot (a CAPTCHA, a one-time code)."""

    action: Literal["askHuman"] = "askHuman"
    question: str = Field(min_length=1, max_length=300, description="What to do.")


async def ask_human(ec: ExecContext, action: AskHuman) -> Outcome:
    raise ActionError(
        "askHuman needs a person: it runs through the environment, which reaches the run's user"
    )


define_action(AskHuman, ask_human, rank=190)


def nobody_took_over(result: ActionResult) -> bool:
    """Whether ``result`` is an askHuman that found nobody to take over (not one a person gave back undone):
    the run cannot go on and ends ``needs_human``."""
    return result.error is not None and result.error.error == NEEDS_HUMAN and "handed_back" not in result.data
