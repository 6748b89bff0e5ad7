"""When the task already looks complete, ``done`` is offered first, and a state change the task never
mentioned is held once.

"Looks complete" is a guess from the task's words (``recap.looks_complete``: every part matched by the run's
successful actions) resting on a fact of the run: the last step's actions ran and changed the page. It is
said in the prompt as a hint. The hold rests on a fact of the page: the action's target names a state change
(Add to cart, Buy, Place order, Subscribe, Update, Remove ...) whose words the task never uses. It applies once
the task looks complete, once only its answer looks left (by the task's parts or by the model's own "next"
note), or when the task is a question. It is held with a note, and a held action is a refusal: a constrained
reply is not offered it again while the page stays the same (the fact the offers rest on); proposed again by
a model that is not constrained, it runs (the model may know better). A small model goes on after the goal: it changes a cart nobody asked it to
change on the way to an answer that is already in view.
"""

from __future__ import annotations

import re

from kite_browser.agent.base.fence import defuse
from kite_browser.agent.browser.actions import OBSERVE_ONLY
from kite_browser.agent.browser.exec.typing import PressKey
from kite_browser.agent.browser.observation import ActionResult, ErrorInfo
from kite_browser.agent.policies.base import Notes, Policy, Proposed, Ran, StepView, Withheld
from kite_browser.agent.policies.own_plan import NEXT
from kite_browser.agent.policies.recap import asks_answer, looks_complete, task_parts, words
from kite_browser.agent.policies.repeats import element_key, page_state

HELD = "unasked_state_change"
"""The error type of an action held once because it changes state the task never mentioned."""
STATE_CHANGE = re.compile(
    r"\b(add(?:ed)? to (?:cart|basket|bag|trolley)|buy|purchase|place order|order now|checkout|check out|"
    r"pay|subscribe|sign up|book now|book|delete|remove|update|empty|clear)\b",
    re.IGNORECASE,
)
"""A target whose name says it changes state on the site (the fact the hold rests on)."""


class GoalReached(Policy):
    """Offers ``done`` first once the task looks complete; holds once a state change the task never named."""

    name = "goal_reached"
    reason = "A small model goes on after the goal and changes state nobody asked it to change."
    held_as = frozenset({HELD})

    def __init__(self) -> None:
        self._complete = False
        self._question = False
        self._changed = False
        """The last step's actions ran and changed the page (a fact of the run)."""
        self._held: set[str] = set()
        self._held_on: dict[str, set[str]] = {}
        """page state -> the elements held on that page (not offered again while it stays the same)."""
        self._task = ""
        self._answer_left = False
        """Every part but the answer looks done, by the task's parts or the model's own "next" note."""
        self._next = ""

    def notes(self, view: StepView) -> Notes:
        self._task, parts = view.task, task_parts(view.task)
        self._question = len(parts) == 1 and asks_answer(parts[0])
        self._complete = looks_complete(view.task, view.history)
        self._answer_left = view.progress.answer_left or (bool(self._next) and asks_answer(self._next))
        changed, self._changed = self._changed, False
        if not (self._complete and changed):
            return Notes()
        return Notes(
            lines=[
                "Every part of the task looks done by your actions so far. If this page shows it is complete, "
                "call done now (with what the task asked for); do not start anything the task does not ask for."
            ]
        )

    def withheld(self, view: StepView) -> Withheld:
        keys = self._held_on.get(page_state(view.obs), set())
        return Withheld(pairs={("click", e.index) for e in view.obs.elements if element_key(e) in keys})

    async def refuse(self, proposed: Proposed) -> ActionResult | None:
        if not (self._complete or self._question or self._answer_left) or proposed.element is None:
            return None
        action = proposed.action
        if action.action != "click" and not (isinstance(action, PressKey) and action.key == "Enter"):
            return None
        name = proposed.element.name
        m = STATE_CHANGE.search(name)
        if m is None or words(name) & words(self._task):
            return None
        key = element_key(proposed.element)
        if key in self._held:
            return None  # asked again: it runs
        self._held.add(key)
        self._held_on.setdefault(page_state(proposed.obs), set()).add(key)
        why = (
            "the task looks done"
            if self._complete
            else "only the task's answer looks left"
            if self._answer_left
            else "the task asks a question"
        )
        message = (
            f'not run: {why}, and "{defuse(name)}" would change the site\'s state ({m.group(0).lower()}), which '
            "the task never mentions. If the task asks for an answer and this page shows it, call done with it now."
        )
        return ActionResult(action=action.action, ok=False, error=ErrorInfo(error=HELD, message=message))

    def learn(self, ran: Ran) -> None:
        self._next = ran.said.get(NEXT, self._next)
        if ran.last:
            self._changed = any(
                r is not None
                and r.ok
                and a.action not in OBSERVE_ONLY
                and (r.page_changed or r.effects.changed)
                for a, r in ran.ran
            )
