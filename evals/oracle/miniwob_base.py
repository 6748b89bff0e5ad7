"""The MiniWoB++ solvers' shared parts: the registry (one small function per task type) and helpers.

Each solver is stateless: it reads what it needs from the view (element values, checked flags, the page text,
and the history of actions) and returns the next action, or None when it cannot tell (the oracle then fails
the task). The task type comes from the page URL (``/miniwob/<type>.html``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from kite_browser.agent.browser.actions import Click, Type
from kite_browser.evals.oracle.decision import Decision
from kite_browser.evals.oracle.view import El, OracleView

Solver = Callable[[OracleView], Decision | None]
SOLVERS: dict[str, Solver] = {}
ORDINALS = {
    "1st": 0,
    "2nd": 1,
    "3rd": 2,
    "4th": 3,
    "5th": 4,
    "6th": 5,
    "7th": 6,
    "8th": 7,
    "9th": 8,
    "10th": 9,
}


def solver(*names: str) -> Callable[[Solver], Solver]:
    def deco(fn: Solver) -> Solver:
        for n in names:
            SOLVERS[n] = fn
        return fn

    return deco


def click(el: El | None) -> Click | None:
    return None if el is None else Click(index=el.index)


def typed(el: El, text: str) -> Type:
    return Type(index=el.index, text=text)


def quoted(text: str, n: int = 0) -> str:
    found = re.findall(r'"\s*([^"]*?)\s*"', text)
    return found[n] if len(found) > n else ""


def named(view: OracleView, name: str, roles: tuple[str, ...] | None = None) -> El | None:
    """The first element whose name is exactly ``name`` (case-sensitive)."""
    return next((e for e in view.elements if e.name == name and (roles is None or e.role in roles)), None)


def button(view: OracleView, name: str) -> El | None:
    want = name.casefold()
    return next((e for e in view.elements if e.role == "button" and e.name.casefold() == want), None)


def submit(view: OracleView) -> Click | None:
    for name in ("Submit", "submit", "Login", "Search"):
        el = button(view, name) or named(view, name)
        if el is not None:
            return click(el)
    return None


def inputs(view: OracleView) -> list[El]:
    return [
        e
        for e in view.elements
        if e.role in ("input", "textbox", "textarea", "searchbox", "spinbutton", "combobox")
        and e.attrs.get("type") not in ("checkbox", "radio")
    ]


def clicked(view: OracleView, el: El) -> bool:
    return view.acted_on(el, "click")


def typed_into(view: OracleView, el: El) -> bool:
    return view.acted_on(el, "type")


def fill_then_submit(view: OracleView, pairs: list[tuple[El, str]]) -> Type | Click | None:
    """Type each value whose field does not show it yet (passwords: not typed yet), then Submit."""
    for el, value in pairs:
        masked = el.attrs.get("type") == "password"
        if (masked and not typed_into(view, el)) or (not masked and el.value != value):
            return typed(el, value)
    return submit(view)


def page_words(view: OracleView, after: str) -> str:
    """The page text after the utterance (the task's own content)."""
    text = " ".join(view.text.split())
    i = text.find(after)
    return text[i + len(after) :] if i >= 0 else text
