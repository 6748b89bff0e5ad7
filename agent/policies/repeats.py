"""An exact repeat that changed nothing is not run again: an action (a click, an Enter, a reload) that already
ran from this very page (its URL, every element's state and its text alike) and brought back that same page,
unchanged, is not offered again to a constrained reply and not run (a ``repeated`` error) until something on
the page changes.

Only the fact counts, never a guess at what the task wants: a second "Add to cart" runs (the cart count on
the page it led to differs: the task may ask for two), "Search" again on the results it produced runs once,
and only when that brought back the same results is it held. A small model that sees no change presses the
same button (or reloads) again and again, and a repeat that changed nothing once changes nothing the next time.

A section the run opened is not closed again by the run while it shows open, because a model that clicks an
expander again to "find" its content only toggles it shut and open, step after step. Its click is left out of
the reply's schema and refused while the page shows it expanded (a fact of the run and the page). A section
the page opened, or the run did not, is not held.

And a reload is not run while fields filled on the page are unsent, since a reload puts back what the run
chose (a sort order picked but not applied) and the model then chooses it again, every step.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass

from kite_browser.agent.base.fence import defuse
from kite_browser.agent.browser.actions import OBSERVE_ONLY, Action
from kite_browser.agent.browser.exec.base import NO_EFFECT, TOGGLED
from kite_browser.agent.browser.exec.typing import PressKey
from kite_browser.agent.browser.observation import ActionResult, Element, ErrorInfo, Observation, role_word
from kite_browser.agent.policies.base import Notes, Policy, Proposed, Ran, StepView, Withheld

REPEATED = "repeated"
"""The error type of an action held back by this rule."""
_NOT_EDITS = frozenset({"scroll", "hover", "wait", "screenshot", "switchTab", "done", "navigate"})
"""Actions that change nothing on the page a repeat would be sent from (``navigate`` leaves it)."""

UNSENT = (
    "not run: a reload throws away what you typed or chose on this page. To apply it, click the button that "
    "sends the form (Search, Apply, Submit, Save ...)."
)
_BOXES = frozenset({"checkbox", "radio", "switch"})


def _fills(action: Action, element: Element | None) -> int:
    """1 for an action that fills a field (type, select, a file, a box ticked), else 0."""
    if action.action in ("type", "select", "uploadFile"):
        return 1
    return int(action.action == "click" and element is not None and role_word(element) in _BOXES)


def element_key(el: Element) -> str:
    """An element as the rule tells it apart: role, name and a link's href (its index changes on every load)."""
    return f"{role_word(el)}|{el.name}|{el.href or ''}"


def page_state(obs: Observation) -> str:
    """A page as "the same page": its URL, every element's state (by role and name, not by index: a reload
    gives new indexes) and its visible text."""
    states = "|".join(
        f"{e.tag}:{e.role}:{e.name}:{e.value}:{e.checked}:{e.selected}:{e.expanded}:{e.disabled}"
        for e in obs.elements
    )
    return hashlib.sha1(f"{obs.url}\n{states}\n{obs.summary.visible_text}".encode()).hexdigest()


def _key(action: Action, element: Element | None) -> str | None:
    """What makes two actions "the same action" here, or None for actions the rule leaves alone."""
    name = action.action
    if name == "refresh":
        return "refresh"
    if element is None:
        return None
    if name == "click":
        return f"click|{element_key(element)}"
    if isinstance(action, PressKey) and action.key == "Enter":
        return f"enter|{element_key(element)}"
    return None


@dataclass(frozen=True)
class _Sent:
    key: str
    state: str
    """The page it ran from."""
    step: int


class Repeats(Policy):
    """Exact repeats that brought the same page back; sections the run opened; fields not sent yet."""

    name = "repeats"
    reason = (
        "An action that already ran from this very page and brought it back unchanged would change nothing."
    )
    held_as = frozenset({REPEATED})

    def __init__(self) -> None:
        self.edits = 0
        """Changes made on pages so far (a field typed, a box ticked, a click that changed the page)."""
        self.unsent = 0
        """Fields typed or chosen on this page since it was loaded: a reload would throw them away."""
        self._futile: dict[tuple[str, str], int] = {}
        """(action key, page state) -> the step at which the action ran from that page and brought it back
        unchanged."""
        self._pending: _Sent | None = None
        """The step's last action with a key, until the next page shows what it led to."""
        self._state = ""
        self._edits_at_look = 0
        self._clicks: Counter[str] = Counter()
        """Clicks that stayed on their page, by what they clicked: a result says "the 2nd time", because
        results that read alike do not tell a model how often it has already pressed a button."""
        self._opened: dict[str, int] = {}
        """Sections (by role, name and href) a click of this run opened, and the step it did."""

    def notes(self, view: StepView) -> Notes:
        """Resolves what the last step's repeat led to (this page, unchanged?) and says what is held."""
        self._state, self._edits_at_look = page_state(view.obs), self.edits
        sent, self._pending = self._pending, None
        if sent is not None and sent.state == self._state:
            self._futile[(sent.key, sent.state)] = sent.step
        lines: list[str] = []
        said = [
            f'click {role_word(el)} "{defuse(el.name)}"'
            for el in view.obs.elements
            if self._held(f"click|{element_key(el)}") is not None
        ][:3]
        if self._held("refresh") is not None:
            said.append("refresh")
        if said:
            lines.append(
                f"Already done from this same page, and it came back unchanged: {'; '.join(said)}. Not again "
                "until something on this page changes."
            )
        still_open = [el for el in view.obs.elements if self._open("click", el) is not None]
        if still_open:
            names = "; ".join(f'{role_word(el)} "{defuse(el.name)}"' for el in still_open[:3])
            lines.append(
                f"Opened by you and still open: {names}. Its content is listed under it; a click would close it."
            )
        if self.unsent:
            lines.append(
                "What you typed or chose on this page is not sent yet: click the button that sends the form "
                "(a reload would throw it away)."
            )
        return Notes(lines=lines)

    def withheld(self, view: StepView) -> Withheld:
        out = Withheld()
        for el in view.obs.elements:
            for verb, action in (("click", "click"), ("enter", "pressKey")):
                if self._held(f"{verb}|{element_key(el)}") is not None:
                    out.pairs.add((action, el.index))
            if self._open("click", el) is not None:
                out.pairs.add(("click", el.index))
        if self.unsent or self._held("refresh") is not None:
            out.names.add("refresh")
        return out

    async def refuse(self, proposed: Proposed) -> ActionResult | None:
        """A ``repeated`` error for an exact repeat that changed nothing, a click that would close a section
        the run opened, or a reload that would throw away fields filled on this page; None to run it."""
        action, element = proposed.action, proposed.element
        if action.action == "refresh" and self.unsent:
            return _repeated("refresh", UNSENT)
        if (opened := self._open(action.action, element)) is not None:
            return _repeated(
                action.action,
                f"not run: you opened this section at step {opened} and it is open, its content listed under "
                "it; a click would close it. Act on what it shows, or open another section.",
            )
        step = self._held(_key(action, element))
        if step is None:
            return None
        return _repeated(
            action.action,
            f"not run: the same action ran from this same page at step {step} and brought it back unchanged, "
            "so it would change nothing again. Change something on the page first, do another part of the "
            "task, or call done if it is complete.",
        )

    def learn(self, ran: Ran) -> None:
        """Takes note of an action that ran; a click that stayed on its page says how many times it ran."""
        if (times := self._ran(ran.action, ran.element, ran.result, ran.step)) > 1:
            ran.result.message = f"{ran.result.message or 'clicked'} ({times} times in this run)"

    def _ran(self, action: Action, element: Element | None, result: ActionResult, step: int) -> int:
        if result.error is not None and result.error.error == REPEATED:
            return 0
        key = _key(action, element)
        if key is not None and result.ok:
            self._pending = _Sent(key, self._state, step) if self.edits == self._edits_at_look else None
        if not result.ok or result.data.get(NO_EFFECT) or action.action in OBSERVE_ONLY:
            return 0
        effects = result.effects
        if element is not None and (toggled := result.data.get(TOGGLED)):
            if toggled == "expanded":
                self._opened[element_key(element)] = step
            else:
                self._opened.pop(element_key(element), None)
        times = 0
        if action.action == "click" and key is not None and not effects.navigated:
            self._clicks[key] += 1
            times = self._clicks[key]
        if effects.navigated:
            self.unsent = 0
        elif action.action not in _NOT_EDITS and effects.changed is not False:
            self.edits += 1
            self.unsent += _fills(action, element)
        return times

    def _open(self, action: str, element: Element | None) -> int | None:
        """The step at which this run opened ``element``, if ``action`` is a click on it and it shows open."""
        if action != "click" or element is None or not element.expanded:
            return None
        return self._opened.get(element_key(element))

    def _held(self, key: str | None) -> int | None:
        """The step at which ``key`` ran from this page and brought it back unchanged, while nothing on the
        page was changed since it was looked at."""
        if key is None or self.edits != self._edits_at_look:
            return None
        return self._futile.get((key, self._state))


def _repeated(action: str, message: str) -> ActionResult:
    return ActionResult(action=action, ok=False, error=ErrorInfo(error=REPEATED, message=message))
