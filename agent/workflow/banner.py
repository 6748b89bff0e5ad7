"""A cookie banner the recording did not have: a replay that meets one over the page closes it and goes on.

Sites add consent banners, and a banner over the page hides the step's target (the element list leaves out
what it covers). When nothing on the page looks like the step's target (``worth_a_look``) and the page offers
buttons that speak of cookies, the replay presses the one that consents least ("Only necessary cookies",
"Reject all cookies"), through the same gate as every step, and looks again. Nothing else is ever pressed
that the workflow does not name: with a target in sight, or no cookie button, nothing happens.
"""

from __future__ import annotations

import re

from kite_browser.agent.browser.observation import Element, Fingerprint, Observation
from kite_browser.agent.workflow.match import worth_a_look

COOKIES = re.compile(r"\bcookies?\b", re.I)
LEAST = re.compile(r"necessary|essential|required|reject|decline|refuse|deny", re.I)


def consent_button(obs: Observation, want: Fingerprint) -> Element | None:
    """The least-consenting cookie button on the page when the step's target ``want`` is not in sight."""
    if any(worth_a_look(want, e) for e in obs.elements):
        return None
    buttons = [
        e
        for e in obs.elements
        if (e.tag == "button" or e.role == "button") and COOKIES.search(e.name or "") and e.in_viewport
    ]
    return next((e for e in buttons if LEAST.search(e.name)), buttons[0] if buttons else None)
