"""How a run stops: the ``Stop`` exception that carries its reason, and ``StopWhen`` (the task ended by itself)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from kite_browser.agent.base.result import StopReason
from kite_browser.agent.browser.exec.base import TOGGLED
from kite_browser.agent.browser.exec.human import NEEDS_HUMAN, nobody_took_over
from kite_browser.agent.browser.observation import ActionResult, ErrorInfo
from kite_browser.agent.protocols import Environment

StopWhen = Callable[[Environment], Awaitable[str | None]]
"""Asked after every step with the run's environment: a reason when the task has ended by itself (a MiniWoB
episode is over), else None."""


class Stop(Exception):
    def __init__(
        self,
        reason: StopReason,
        message: str = "",
        *,
        success: bool = False,
        answer: str = "",
        data: object = None,
        verified: bool | None = None,
        verification: str = "",
    ) -> None:
        """``verified``: whether the pages bore out a claimed success (None: nothing checked), with the
        evidence in ``verification`` (agent/policies/claims.py)."""
        super().__init__(message or reason)
        self.reason, self.message, self.success, self.answer = reason, message, success, answer
        self.data, self.verified, self.verification = data, verified, verification

    @classmethod
    def unreachable(cls, url: str, error: ErrorInfo | None) -> Stop:
        """The start URL could not be opened: "could not open URL" once (a navigation error already says it)."""
        message = error.message if error else "navigation failed"
        if not message.startswith("could not open "):
            message = f"could not open {url}: {message}"
        return cls(StopReason.START_URL_UNREACHABLE, message)


def stop_if_nobody_took_over(result: ActionResult) -> None:
    """An askHuman that found nobody to take over (batch, eval, a face with no person) ends the run
    ``needs_human`` at once: nothing else can do what a person was needed for."""
    if nobody_took_over(result):
        raise Stop(StopReason.NEEDS_HUMAN, result.error.message if result.error else NEEDS_HUMAN)


OF_REPLY = {False: " of your reply", True: ""}


def cut_short(result: ActionResult) -> str | None:
    """Why the reply's actions after this one are not run (it failed, a section toggled, the page changed)."""
    if not result.ok:
        return "that action failed"
    if TOGGLED in result.data:
        return f"the click {result.data[TOGGLED]} a section"
    return "the page changed" if result.page_changed else None
