"""The ledger of a run's refused actions (declined or blocked, or whose request was held and declined), each
settled only when the very same action later runs with permission."""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from kite_browser.agent.browser.actions import Action
from kite_browser.agent.browser.observation import ActionResult, Element, HeldRequest, Observation
from kite_browser.agent.run.record import RefusedAction

Key = tuple[str, str, str, str]


class Refusals:
    """Refused actions of a run. An earlier refusal is settled only by the same action — the same kind, the
    same target element (its index, stable while the element stays in the page, and its name), the same
    values, on the same page — run later with permission (approved, or allowed) and not refused while it
    ran. Another action that merely shares its name (another "Pay" on the site, another value typed) settles
    nothing; a request the page sent on its own and that was declined is never settled."""

    def __init__(self) -> None:
        self._open: dict[Key, RefusedAction] = {}
        self._late: list[RefusedAction] = []

    def clear(self) -> None:
        self._open, self._late = {}, []

    @staticmethod
    def key(action: Action, element: Element | None, obs: Observation) -> Key:
        """What makes two actions the same: kind, values, target element, page (without its fragment)."""
        values = json.dumps(action.to_json(), sort_keys=True, default=str)
        target = f"{element.index}:{element.name}" if element is not None else ""
        parts = urlsplit(obs.url)
        page = f"{parts.scheme}://{(parts.hostname or '').lower()}{parts.path}?{parts.query}"
        return action.action, values, target, page

    def track(
        self,
        action: Action,
        element: Element | None,
        obs: Observation,
        step: int,
        described: str,
        refused: str | None,
        reason: str,
    ) -> None:
        key = self.key(action, element, obs)
        if refused is None:
            self._open.pop(key, None)
            return
        self._open[key] = RefusedAction(step=step, action=described, outcome=refused, reason=reason)

    def held(self, requests: list[HeldRequest], step: int) -> None:
        """Requests the page sent on its own between two actions (a timer), held and refused."""
        self._late += [
            RefusedAction(step=step, action=f"request {r.describe()}", outcome=r.handled, reason=r.reason)
            for r in requests
            if r.handled in ("declined", "blocked")
        ]

    @staticmethod
    def after_run(result: ActionResult) -> tuple[str, str] | None:
        """A refusal that happened while the action ran, as (outcome, reason): its target changed at the
        input and the second look or the input guard refused it (``refused``), the page's own sensitive
        confirm()/prompt()/beforeunload was dismissed (``dismissed``), or a state-changing request it set
        off was held and declined or blocked at the network layer (it never reached the server)."""
        if result.error is not None and result.error.error == "target_changed":
            return "refused", result.error.message
        dialog = result.effects.dialog
        if dialog is not None and dialog.handled == "dismissed" and dialog.reason:
            return "dismissed", f'the page\'s {dialog.type} "{dialog.message[:120]}" was {dialog.reason}'
        held = [h for h in result.effects.held if h.handled in ("declined", "blocked")]
        if held:
            first = held[0]
            more = f" (and {len(held) - 1} more)" if len(held) > 1 else ""
            return first.handled, f"the request it sent, {first.describe()}{more}, was held: {first.reason}"
        return None

    @property
    def outstanding(self) -> list[RefusedAction]:
        return sorted([*self._open.values(), *self._late], key=lambda r: r.step)


def host(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()
