"""Says to hand the browser to a person (``askHuman``) where the page asks for what the user alone may give: a
CAPTCHA, a one-time or verification code. A hint in the prompt; nothing is withheld or refused."""

from __future__ import annotations

import re

from kite_browser.agent.browser.observation import Element, Observation
from kite_browser.agent.policies.base import Notes, Policy, StepView

CAPTCHA = re.compile(r"captcha|i'?m not a robot|i am not a robot|verify you are (a )?human|turnstile", re.I)
CODE = re.compile(
    r"\b(one[- ]?time (pass)?code|verification code|2fa|two[- ]factor|authenticat\w* code|otp|sms code)\b",
    re.I,
)


def _asks_for_code(el: Element) -> bool:
    if el.attrs.get("autocomplete", "").split()[-1:] == ["one-time-code"]:
        return True
    return el.editable and bool(
        CODE.search(" ".join(filter(None, (el.name, el.placeholder, el.attrs.get("name")))))
    )


def what_a_person_must_do(obs: Observation) -> str | None:
    """What on this page only the user may do (a CAPTCHA, a code sent to them), or None."""
    names = " ".join(e.name for e in obs.elements)
    if CAPTCHA.search(names) or CAPTCHA.search(obs.summary.visible_text):
        return "a CAPTCHA"
    if any(_asks_for_code(e) for e in obs.elements):
        return "a one-time or verification code sent to the user"
    return None


class PersonNeeded(Policy):
    """Says to call askHuman where the page asks for a CAPTCHA or a code only the user has."""

    name = "person_needed"
    reason = "A model left alone with a CAPTCHA or a code it cannot have guesses, clicks around or gives up."

    def notes(self, view: StepView) -> Notes:
        what = what_a_person_must_do(view.obs)
        if what is None:
            return Notes()
        return Notes(
            lines=[
                f"This page asks for {what}: do not solve or guess it yourself; call askHuman with what the user "
                "should do here, and go on from the page they hand back."
            ]
        )
