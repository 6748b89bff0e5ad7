"""The loop guard: a step that repeats one of the two before it on an unchanged page is warned about, its
no-effect actions are not offered for the next step, and the run stops at the configured count."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from kite_browser.agent.base.result import StopReason
from kite_browser.agent.browser.actions import OBSERVE_ONLY, Action
from kite_browser.agent.browser.exec.base import NO_EFFECT
from kite_browser.agent.browser.observation import ActionResult, Element, Observation
from kite_browser.agent.config import AgentConfig
from kite_browser.agent.policies.base import Notes, Policy, Ran, StepView, Withheld
from kite_browser.agent.run.stop import Stop


class LoopGuard(Policy):
    """Warns about, withholds and finally stops a step that repeats itself on an unchanged page."""

    name = "loop_guard"
    reason = "A step that repeats an earlier one on an unchanged page gets no further the next time either."

    def __init__(self, limits: AgentConfig) -> None:
        self.limits = limits
        self.repeats, self._last_key, self._key_before = 0, "", ""
        self.warning: str | None = None
        self.withheld_names: frozenset[str] = frozenset()
        """Observation-only actions (read, getElements ...) the last steps repeated to no end: a constrained
        reply leaves them out for the next step, because a model that rereads the same passages goes on
        rereading them through every warning and never gets to its answer."""
        self.futile: frozenset[tuple[str, int | None]] = frozenset()
        """(action, element index or None) pairs of a step that repeats an earlier one without getting any
        further (typing what a field held, clicking a chosen radio or tab, scrolling at the end): a
        constrained reply does not offer that action on that element (or, with no element, at all) for the
        next step, because a model stuck on a control it has already set (a chosen radio, a filled field)
        keeps setting it again instead of moving on to the next one (the form's Submit)."""

    def notes(self, view: StepView) -> Notes:
        warning, self.warning = self.warning, None
        repeating = self.repeats >= self.limits.loop_warn
        return Notes(lines=[warning] if warning else [], repeating=repeating)

    def withheld(self, view: StepView) -> Withheld:
        return Withheld(
            names=set(self.withheld_names) | {name for name, index in self.futile if index is None},
            pairs={(name, index) for name, index in self.futile if index is not None},
        )

    def learn(self, ran: Ran) -> None:
        if ran.last:
            self.warning = self.check_loop(ran.ran, ran.obs)

    def check_loop(self, ran: Sequence[tuple[Action, ActionResult | None]], obs: Observation) -> str | None:
        """Stop on the configured repeat count; a warning for the model before that, else None.
        ``ran``: the step's actions that ran, with their results (those a reply gave after a page change or a
        failure never ran, so they do not make a step look new). When every one said it changed nothing (or
        failed), the page's text is left out of the key; otherwise it counts, so clicking "Generate" until the
        right number shows, or nudging a slider whose value is plain text, is progress (a countdown ticking
        beside a no-op is not)."""
        no_effect = all(said_no_effect(result) for _, result in ran)
        key = loop_key(_effective(ran), obs, with_text=not no_effect)
        # A repeat of the step before, or of the one before that: clicking a checkbox on and off again (each
        # click changes its state, so no two steps in a row are alike) is a loop too.
        self.repeats = self.repeats + 1 if key in (self._last_key, self._key_before) else 1
        self._last_key, self._key_before = key, self._last_key
        names = {action.action for action in _effective(ran)} - {"done"}
        warned = self.repeats >= self.limits.loop_warn
        self.withheld_names = frozenset(names) if warned and names and names <= OBSERVE_ONLY else frozenset()
        self.futile = frozenset(
            (action.action, action.target_index)
            for action, result in ran
            if warned and result is not None and action.action != "done"
        )
        if self.repeats >= self.limits.loop_stop:
            raise Stop(
                StopReason.LOOP_DETECTED,
                f"the same action was repeated {self.repeats} times without getting any further",
            )
        if warned:
            return (
                f"You have repeated the same action {self.repeats} times without getting any further. Do not "
                "repeat it: do the next part of the task (another element), or call done."
            )
        return None


def _effective(ran: Sequence[tuple[Action, ActionResult | None]]) -> list[Action]:
    """The actions that count in a step's loop key: a change that was not needed (a select of the option
    already selected, typing what a field already holds: ``no_effect`` in its data) is left out, so "select
    Blue, sort Featured, click Search" and "sort Featured, click Search" on the same page are the same step.
    Every other action counts, by what was asked: a click that changed nothing visible is still a different
    attempt from another one."""
    return [
        action for action, result in ran if result is None or not result.ok or not result.data.get(NO_EFFECT)
    ]


def said_no_effect(result: ActionResult | None) -> bool:
    """The action failed, changed nothing the executor could see, or did nothing because nothing was needed
    (``no_effect`` in its data). Not read from its message: that quotes the page's own labels."""
    if result is None or not result.ok or result.effects.changed is False:
        return True
    return bool(result.data.get(NO_EFFECT))


def loop_key(actions: list[Action], obs: Observation, *, with_text: bool = False) -> str:
    """What makes a step "the same again": the actions, the URL, the scroll and the state of the page's
    elements (name, value, checked, selected, expanded, disabled) — not the page's text: a countdown or a
    clock ticking on the page must not hide a loop. (So a click whose only effect is a number changing in
    plain text counts as a repeat too; one that changes an element, like "Cart (2)", does not.)
    Elements are named by what they are, not by their index: a page loaded again gets new indexes (Kite never
    reuses one), and a model that selects "Colour" and clicks "Search" on every reload is repeating itself."""
    states = hashlib.sha1(
        "|".join(
            f"{e.tag}:{e.role}:{e.name}:{e.value}:{e.checked}:{e.selected}:{e.expanded}:{e.disabled}"
            for e in obs.elements
        ).encode()
    ).hexdigest()
    s = obs.summary
    focused = obs.element(s.focused) if isinstance(s.focused, int) else None
    text = hashlib.sha1(s.visible_text.encode()).hexdigest() if with_text else ""
    key = [obs.url, [_action_key(a, obs) for a in actions], states, s.scroll, _what(focused, s.focused), text]
    return repr(key)


def _action_key(action: Action, obs: Observation) -> dict[str, Any]:
    data: dict[str, object] = dict(action.to_json())
    if isinstance(index := data.get("index"), int):
        data["index"] = _what(obs.element(index), index)
    return data


def _what(el: Element | None, fallback: object) -> object:
    return f"{el.role}:{el.tag}:{el.name}" if el is not None else fallback
