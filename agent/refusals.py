"""The ledger of a run's refused actions (declined or blocked), settled when the same action later runs."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from kite_browser.agent.browser.actions import Action
from kite_browser.agent.browser.observation import ActionResult, Observation
from kite_browser.agent.record import RefusedAction


class Refusals:
    """Refused actions of a run. The same action on the same element and site, later run with the user's
    approval (or allowed), settles an earlier refusal."""

    def __init__(self) -> None:
        self._open: dict[tuple[str, str, str], RefusedAction] = {}

    def clear(self) -> None:
        self._open = {}

    def track(
        self,
        action: Action,
        element: Any,
        obs: Observation,
        step: int,
        described: str,
        refused: str | None,
        reason: str,
    ) -> None:
        key = (action.action, element.name if element is not None else repr(action.to_json()), host(obs.url))
        if refused is None:
            self._open.pop(key, None)
            return
        self._open[key] = RefusedAction(step=step, action=described, outcome=refused, reason=reason)

    @staticmethod
    def after_run(result: ActionResult) -> tuple[str, str] | None:
        """A refusal that happened while the action ran, as (outcome, reason): its target changed at the
        input and the second look or the input guard refused it (``refused``), or the page's own sensitive
        confirm()/prompt()/beforeunload was dismissed (``dismissed``)."""
        if result.error is not None and result.error.error == "target_changed":
            return "refused", result.error.message
        dialog = result.effects.dialog
        if dialog is not None and dialog.handled == "dismissed" and dialog.reason:
            return "dismissed", f'the page\'s {dialog.type} "{dialog.message[:120]}" was {dialog.reason}'
        return None

    @property
    def outstanding(self) -> list[RefusedAction]:
        return list(self._open.values())


def host(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()
