"""Done once, not again: an action that sent the page somewhere is not run again from the page it led to
while nothing on it was changed since.

Recorded (the sites subset, bundled 1.5B model, b74e8dd): four of six shop tasks reached their goal in one
or two steps and then kept doing the last thing. "Put three Red Enamel Mugs in the cart" typed 3, clicked
"Add to cart" (the page said "Added 3 × Red Enamel Mug to your cart", the cart link "Cart ( 3 )") and clicked
"Add to cart" thirteen more times: 28 mugs. "Add the Sky Blue Espresso Mug" added 6; "show only the yellow
products" pressed Search eleven times, then picked a category; "search for mug" pressed Search three times,
then opened a product. Asked whether the task was complete, the same model said "no" on four of those five
pages (and "yes" on two pages where it was not), so the model cannot be the judge of it; but the repeat
itself is plain to see.

The rule: a click, an Enter or a reload that navigated (a form sent, a link followed, a page reloaded) is
keyed by what it acted on (role, name, and a link's href) and remembered with the URL it led to. From that
URL, the same action is not offered again (a constrained reply's schema leaves it out) and not run (a reply
that gives it anyway gets a ``repeated`` error) until something on the page is changed: a field typed or
chosen, a box ticked, any action that changed the page without leaving it. So "type a new query, then click
Search" runs; "click Search" again on the results it produced does not. Pagination is untouched: "Next" on
page 2 is a link to page 3, another href. Actions that do not navigate ("Load more", a stepper's "+") are
never held back. Like a browser's "confirm form resubmission", it also keeps a model from sending an order
or a message twice by accident.

A section the run opened is not closed again by the run while it shows open: recorded (click-collapsible-2,
bundled model, 93b3002), the model clicked "Section #1" ten steps running, each click opening or closing it,
each result saying which ("now expanded", "now collapsed (it was expanded: this click closed it)"). Its click is
left out of the reply's schema and refused while the look shows it expanded; another section, or what the open
one shows, is what is left to do. A section the page opened, or the run did not, is not held.

And a reload is not run while fields filled on the page are unsent: recorded (sort-price), the model chose
"Price: low to high" and pressed refresh instead of Search, which put the sort back, every step.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from kite_browser.agent.browser.actions import OBSERVE_ONLY, Action
from kite_browser.agent.browser.exec.base import NO_EFFECT, TOGGLED
from kite_browser.agent.browser.exec.typing import PressKey
from kite_browser.agent.browser.observation import ActionResult, Element, ErrorInfo, Observation, role_word

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


@dataclass
class Withheld:
    """What a constrained reply is not offered on a page: (action, index) pairs and whether ``refresh``."""

    pairs: set[tuple[str, int]] = field(default_factory=set)
    refresh: bool = False
    notices: list[str] = field(default_factory=list)
    """The prompt's lines saying what is held back and why (page words in them: defuse before use)."""


@dataclass(frozen=True)
class _Led:
    url: str
    """Where the action led."""
    edits: int
    """The run's count of changes made on a page, just after it ran."""
    step: int


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


class Repeats:
    """The run's navigating actions and where they led; which of them may not run again from here."""

    def __init__(self) -> None:
        self._led: dict[str, _Led] = {}
        self.edits = 0
        self.unsent = 0
        """Fields typed or chosen on this page since it was loaded: a reload would throw them away."""
        self._ran = 0
        self._clicks: Counter[str] = Counter()
        """Clicks that stayed on their page, by what they clicked: a result says "the 2nd time" (recorded:
        told to press Increment twice, the 1.5B model pressed it seven times, each result alike)."""
        self._opened: dict[str, int] = {}
        """Sections (by role, name and href) a click of this run opened, and the step it did."""
        self._last: tuple[Observation, int, Withheld] | None = None
        """``withheld``'s answer for the last observation, until another action runs (a step asks twice: the
        prompt's notices, then the reply schema)."""

    def ran(self, action: Action, element: Element | None, result: ActionResult, step: int) -> int:
        """Take note of an action that ran (after its result is known). Returns how many times the run has
        now clicked this element (by role, name and href) with an effect, for a click that stayed on the
        page; else 0."""
        self._ran += 1
        if not result.ok or result.data.get(NO_EFFECT) or action.action in OBSERVE_ONLY:
            return 0
        effects = result.effects
        key = _key(action, element)
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
            if effects.url_after and key is not None:
                self._led[key] = _Led(effects.url_after, self.edits, step)
        elif action.action not in _NOT_EDITS and effects.changed is not False:
            self.edits += 1
            self.unsent += _fills(action, element)
        return times

    def refusal(self, action: Action, element: Element | None, url: str) -> ActionResult | None:
        """A ``repeated`` error for ``action`` if it may not run again on the page at ``url`` (or, for a reload,
        if it would throw away fields filled on this page); None to run it."""
        if action.action == "refresh" and self.unsent:
            return ActionResult(action="refresh", ok=False, error=ErrorInfo(error=REPEATED, message=UNSENT))
        if (opened := self._open(action.action, element)) is not None:
            message = (
                f"not run: you opened this section at step {opened} and it is open, its content listed under "
                "it; a click would close it. Act on what it shows, or open another section."
            )
            return ActionResult(
                action=action.action, ok=False, error=ErrorInfo(error=REPEATED, message=message)
            )
        led = self._held(_key(action, element), url)
        if led is None:
            return None
        message = (
            f"not run: the same action already ran at step {led.step} and led to this page, and nothing on "
            "the page was changed since, so it would only do the same again (add again, send again). If the "
            "task is complete, call done; otherwise do another part of the task."
        )
        return ActionResult(action=action.action, ok=False, error=ErrorInfo(error=REPEATED, message=message))

    def withheld(self, obs: Observation) -> Withheld:
        """What a constrained reply on ``obs`` is not offered, and the prompt's lines saying why."""
        if self._last is not None and self._last[0] is obs and self._last[1] == self._ran:
            return self._last[2]
        out = Withheld()
        said: list[str] = []
        for el in obs.elements if self._led else ():
            for verb, action in (("click", "click"), ("enter", "pressKey")):
                if self._held(f"{verb}|{element_key(el)}", obs.url) is not None:
                    out.pairs.add((action, el.index))
                    if verb == "click" and len(said) < 3:
                        said.append(f'click {role_word(el)} "{el.name}"')
        if self._held("refresh", obs.url) is not None:
            said.append("refresh")
        still_open = [el for el in obs.elements if self._open("click", el) is not None]
        for el in still_open:
            out.pairs.add(("click", el.index))
        if still_open:
            names = "; ".join(f'{role_word(el)} "{el.name}"' for el in still_open[:3])
            out.notices.append(
                f"Opened by you and still open: {names}. Its content is listed under it; a click would close it."
            )
        out.refresh = self.unsent > 0 or "refresh" in said
        if said:
            out.notices.append(
                f"Already done, and it led to this page: {'; '.join(said)}. Not again until you change "
                "something on this page. If the task is complete, call done."
            )
        if self.unsent:
            out.notices.append(
                "What you typed or chose on this page is not sent yet: click the button that sends the form "
                "(a reload would throw it away)."
            )
        self._last = (obs, self._ran, out)
        return out

    def _open(self, action: str, element: Element | None) -> int | None:
        """The step at which this run opened ``element``, if ``action`` is a click on it and it shows open."""
        if action != "click" or element is None or not element.expanded:
            return None
        return self._opened.get(element_key(element))

    def _held(self, key: str | None, url: str) -> _Led | None:
        led = self._led.get(key) if key is not None else None
        return led if led is not None and led.url == url and led.edits == self.edits else None
