"""What the oracle decides each step: one action of the registry (``agent/browser/actions.py``), or several.

The actions are the registry's own models (``Click(index=3)``, ``Done(success=False, answer=…)``), built with
only the parameters the oracle gives; ``flat`` writes one as a model would (``model.py`` turns it into a
tool call): ``{"action": "click", "index": 3}``, the defaults it did not set left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

from kite_browser.agent.base.jsontypes import JsonObject
from kite_browser.agent.browser.actions import ActionModel, Done

Decision: TypeAlias = ActionModel | Sequence[ActionModel]
"""One action, or several for one reply (MiniWoB: the checkboxes to tick, the key presses of a slider)."""


def fail(message: str) -> Done:
    """The oracle gives up: the task is reported failed with why (``oracle: …``)."""
    return Done(success=False, answer=f"oracle: {message}")


def flat(action: ActionModel) -> JsonObject:
    """The action's flat JSON form with the parameters it was given (by their JSON names: ``from``, ``filePath``)."""
    return action.to_json(given_only=True)
