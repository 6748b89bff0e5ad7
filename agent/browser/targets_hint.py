"""What a stale index meant: after a reload every element has a new index (Kite never reuses one), and a model
that copies the old one is told where the same element is now. Nothing is run on its behalf: the index it
gave stays refused."""

from __future__ import annotations

from collections.abc import Iterable

from kite_browser.agent.browser.observation import Element
from kite_browser.agent.browser.render import role_word


def same_element_now(was: Element | None, now: Iterable[Element]) -> str:
    """' (select "Colour" is [36] now)' when exactly one current element is what ``was`` was, else ''."""
    if was is None or not was.name:
        return ""
    alike = [e for e in now if (e.tag, e.role, e.name) == (was.tag, was.role, was.name)]
    if len(alike) != 1:
        return ""
    return f' ({role_word(alike[0])} "{was.name}" is [{alike[0].index}] now)'
