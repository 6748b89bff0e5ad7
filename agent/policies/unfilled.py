"""Nothing typed: a click or an Enter that would send a sign-in form (one with a password field) with every
text field empty is not run, once, and the reply says which fields to fill first.

A sign-in sent empty is a failed login the site counts (a real site may lock the account after a few). A form
is "unfilled" when it has a password field, every visible text field in it is empty, and no box, radio or
select in it differs from how the page set it. Only sign-in forms: an empty search or a form whose choice is
made in a custom picker is a legitimate send (docs/decisions/unfilled-sign-in-only.md).

The rule asks once: the same action on the same page, with nothing changed since it was refused, runs (a
person may mean to send it empty: to see the form's own errors).
"""

from __future__ import annotations

from kite_browser.agent.base.fence import defuse
from kite_browser.agent.browser.actions import Action
from kite_browser.agent.browser.exec.typing import PressKey
from kite_browser.agent.browser.observation import ActionResult, ErrorInfo
from kite_browser.agent.policies.base import Policy, Proposed
from kite_browser.agent.policies.repeats import element_key, page_state

UNFILLED = "unfilled_form"
"""The error type of an action held back by this rule."""

UNFILLED_JS = """(el) => {
  const tag = el.tagName.toLowerCase();
  const type = (el.getAttribute('type') || '').toLowerCase();
  const TEXT = ['', 'text', 'email', 'password', 'search', 'tel', 'url', 'number'];
  const isText = (f) => f.tagName === 'TEXTAREA' ||
    (f.tagName === 'INPUT' && TEXT.includes((f.getAttribute('type') || '').toLowerCase()));
  const sends = (tag === 'button' && (type === '' || type === 'submit')) ||
    (tag === 'input' && (type === 'submit' || type === 'image')) || isText(el);
  const form = el.form;
  if (!sends || !form) return null;
  const fields = [...form.elements].filter((f) => isText(f) && !f.disabled && !f.readOnly &&
    f.getClientRects().length > 0);
  if (!fields.some((f) => (f.getAttribute('type') || '').toLowerCase() === 'password')) return null;
  if (fields.some((f) => f.value !== '')) return null;
  for (const f of form.elements) {
    if (f.tagName === 'SELECT') {
      if ([...f.options].some((o) => o.defaultSelected)) {
        if ([...f.options].some((o) => o.selected !== o.defaultSelected)) return null;
      } else if (f.multiple ? f.selectedOptions.length > 0 : f.selectedIndex > 0) return null;
    } else if ((f.type === 'checkbox' || f.type === 'radio') && f.checked !== f.defaultChecked) return null;
  }
  const name = (f) => ((f.labels && f.labels[0] && f.labels[0].innerText) || f.getAttribute('aria-label') ||
    f.placeholder || f.name || f.type || 'text').trim().slice(0, 40);
  return fields.slice(0, 4).map(name);
}"""
"""For the element an action would send a form with: the names of the form's empty text fields when the form
is an unfilled sign-in form, else null."""


def _sends(action: Action) -> bool:
    return action.action == "click" or (isinstance(action, PressKey) and action.key == "Enter")


class Unfilled(Policy):
    """The forms this run was told were unfilled, so that the same action asked again runs."""

    name = "unfilled"
    reason = "A sign-in form sent with every field empty counts as a failed attempt on the site."
    held_as = frozenset({UNFILLED})

    def __init__(self) -> None:
        self._asked: set[tuple[str, str]] = set()

    async def refuse(self, proposed: Proposed) -> ActionResult | None:
        """An ``unfilled_form`` error for the action if it would send an unfilled form and was not refused
        already on this same page (by its state: nothing changed since); None to run it."""
        action, element = proposed.action, proposed.element
        if element is None or not _sends(action) or element.tag not in ("button", "input"):
            return None  # only a button or an input sends a form (no page call for a link, a tab, a box)
        key = (page_state(proposed.obs), f"{action.action}|{element_key(element)}")
        if key in self._asked:
            return None
        got = (await proposed.page.read_each([element.index], UNFILLED_JS)).get(element.index)
        if not isinstance(got, list) or not got:
            return None
        self._asked.add(key)
        fields = ", ".join(f'"{defuse(str(name))}"' for name in got)
        message = (
            f"not run: it would send this sign-in form with {fields} empty (a sign-in sent empty counts as a "
            "failed attempt). Fill them in first, then send it."
        )
        return ActionResult(action=action.action, ok=False, error=ErrorInfo(error=UNFILLED, message=message))
