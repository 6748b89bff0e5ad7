"""``quoted_text``: where the text a task quotes is. On this page, the element named so; not on it now, the places
of the page (tabs, sections, folders) that were open when it was there, those seen open without it, and those
still shut.

Each line joins a fact of the page (this element's name is the quoted text; this control was open and the page
did not hold the text) to a guess from the task's words (its quoted text is what it looks for): so it is a hint
in the prompt, and it withholds nothing.
"""

from __future__ import annotations

import re

from kite_browser.agent.browser.observation import Element, Observation, role_word
from kite_browser.agent.policies.base import Notes, Policy, StepView

_QUOTED = re.compile(r'"([^"\n]{1,80})"|“([^”\n]{1,80})”')
MAX_LISTED = 8
"""Elements or places named in each list of a line (the rest as a count)."""


def quoted(task: str) -> list[str]:
    """The texts the task puts in quotes (straight or curly), as written."""
    return [(a or b).strip() for a, b in _QUOTED.findall(task) if (a or b).strip()]


def opens_a_place(el: Element) -> bool:
    """A control that shows or hides content of the page: a disclosure (``aria-expanded``) or a tab."""
    return el.expanded is not None or role_word(el) in ("tab", "treeitem")


def is_shut(el: Element) -> bool:
    """The content it opens is not shown now: collapsed, or a tab not selected."""
    return el.expanded is False or (el.expanded is None and not el.selected)


def on_page(text: str, obs: Observation, task: str = "") -> bool:
    """``text`` (case aside) in any element's name or in the page's text, the task's own words left out (a page
    that shows the task, as MiniWoB's do, holds its quoted text there)."""
    low, page = text.lower(), obs.summary.visible_text.lower()
    if task.strip():
        page = page.replace(task.strip().lower(), " ")
    return low in page or any(low in e.name.lower() for e in obs.elements)


def named(text: str, obs: Observation) -> list[Element]:
    """The elements whose whole name is ``text`` (case and surrounding space aside)."""
    low = text.strip().lower()
    return [e for e in obs.elements if e.name.strip().lower() == low]


def place(el: Element) -> str:
    return f'{role_word(el)} "{el.name[:50]}"' if el.name else f"[{el.index}] {role_word(el)}"


def _listed(items: list[str]) -> str:
    more = len(items) - MAX_LISTED
    return ", ".join(items[:MAX_LISTED]) + (f" (+{more} more)" if more > 0 else "")


class QuotedText(Policy):
    """The element named as the task quotes it, when the page has one; while the quoted text is not on the page,
    the places open when it was there, those seen open so far in the run without it, and those still shut."""

    name = "quoted_text"
    reason = (
        "A small model follows a task's route literally (switch tabs, expand folders) past the element the task "
        "names, and forgets which places it already opened."
    )

    def __init__(self) -> None:
        self._searched: dict[str, list[str]] = {}
        """Per page (its URL), the places seen open while the quoted text was not on the page."""
        self._found: dict[str, tuple[int, list[str]]] = {}
        """Per page, the last step the quoted text was on it, with the places open then."""

    def notes(self, view: StepView) -> Notes:
        sought = quoted(view.task)
        if not sought:
            return Notes()
        url, obs = view.obs.url, view.obs
        places = [(place(e), is_shut(e)) for e in obs.elements if opens_a_place(e)]
        if any(on_page(text, obs, view.task) for text in sought):
            self._found[url] = (view.step, [p for p, shut in places if not shut])
            found = [e for text in sought for e in named(text, obs)]
            listed = _listed([f'[{e.index}] {role_word(e)} "{e.name[:50]}"' for e in found])
            return Notes(lines=[f"Named as the task quotes it, on this page: {listed}."] if found else [])
        searched = self._searched.setdefault(url, [])
        step, held = self._found.get(url, (0, []))
        searched += [p for p, shut in places if not shut and p not in searched and p not in held]
        texts = " or ".join(f'"{text}"' for text in sought)
        lines = []
        if held:
            were = "was" if len(held) == 1 else "were"
            lines.append(
                f"{texts} was on this page at step {step}, while {_listed(held)} {were} open: open it again."
            )
        if searched:
            shut = [p for p, closed in places if closed and p not in searched and p not in held]
            line = f"{texts} is not on this page now. Looked in, and it was not there: {_listed(searched)}"
            lines.append(line + (f". Not opened yet: {_listed(shut)}." if shut else "."))
        return Notes(lines=lines)
