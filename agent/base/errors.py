"""Structured errors shared by every room.

Every error Kite reports to a user, a model or a tool caller has the same shape:
``{"error": "<snake_case_type>", "message": "<human text>", ...context}``. This module is a leaf: any room
may import it.
"""

from __future__ import annotations

from typing import Any, ClassVar

from kite_browser.agent.base.jsontypes import JsonObject


class KiteError(Exception):
    """Base of every typed Kite error. ``type`` is the snake_case name seen in ``to_dict()``."""

    type: ClassVar[str] = "kite_error"

    def __init__(self, message: str, **context: Any) -> None:
        super().__init__(message)
        self.message = message
        self.context = context

    def to_dict(self) -> JsonObject:
        return {"error": self.type, "message": self.message, **self.context}

    def __str__(self) -> str:
        return self.message


class ConfigError(KiteError):
    """A configuration file or value is invalid; the message names the file, line or key at fault."""

    type = "config_error"


class UsageError(KiteError):
    """The user asked for something that cannot work (bad flag combination, bad value)."""

    type = "usage_error"


class BrowserError(KiteError):
    """Base for failures of the browser itself (launch, crash, disconnect)."""

    type = "browser_error"


class ChromiumNotFoundError(BrowserError):
    type = "chromium_not_found"


class BrowserCrashedError(BrowserError):
    type = "browser_crashed"


CRASHED_TAB_ADVICE = "switch to another tab or open a new one, or restart the browser"


def browser_failure(text: str) -> dict[str, str]:
    """A Playwright error's text as Kite's typed error: its first line; a renderer that crashed during the call
    (``Target crashed``: out of memory, or a fault in Chromium) is ``browser_crashed`` and says what to do, as
    the next use of that tab does (``ContextSession.page``); anything else is ``browser_error``."""
    first = text.strip().splitlines()[0].strip() if text.strip() else "browser error"
    if "Target crashed" in first:
        return {
            "error": BrowserCrashedError.type,
            "message": f"{first}: the tab crashed; {CRASHED_TAB_ADVICE}",
        }
    return {"error": BrowserError.type, "message": first}


class ActionError(KiteError):
    """Base for an action that could not be carried out; the session keeps working."""

    type = "action_error"


class StaleElementError(ActionError):
    """An element index that is not in the current page. Carries a fresh element list in ``context``."""

    type = "stale_element"


class ElementNotFoundError(ActionError):
    type = "element_not_found"


class NavigationFailedError(ActionError):
    """A navigation (open a URL, back, forward, reload, a tab's first page) did not reach its page."""

    type = "navigation_failed"


class TabNotFoundError(ActionError):
    """No tab has the requested index or url; ``tabs`` in the context lists the open ones."""

    type = "tab_not_found"


class ValidationFailed(ActionError):
    """An action's parameters are invalid (two target kinds, missing field, ...)."""

    type = "invalid_action"
