"""What the oracle sees of a step: the structured view (``agent.llm.model.ModelView``) in its own terms.

The oracle acts like a model shown the prompt: it only picks elements the element list shows (those in the
viewport), scrolls when more are below, and remembers nothing but the run's history of actions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kite_browser.agent.browser.observation import Element
from kite_browser.agent.browser.render import render_observation, role_word
from kite_browser.agent.llm.model import ModelView, PastAction


@dataclass
class El:
    """One element as the oracle matches it: the role word the prompt shows, the name, a few attributes."""

    index: int
    role: str
    name: str = ""
    attrs: dict[str, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    new: bool = False

    @classmethod
    def of(cls, e: Element) -> El:
        attrs = dict(e.attrs)
        for key, value in (("type", e.type), ("placeholder", e.placeholder), ("value", e.value)):
            if value:
                attrs[key] = value
        if e.href:
            attrs["href"] = e.href
        if e.frame is not None:
            attrs["frame"] = e.frame
        flags = {name for name in ("disabled", "checked", "selected") if getattr(e, name)}
        if e.expanded is not None:
            flags.add("expanded" if e.expanded else "collapsed")
        return cls(e.index, role_word(e), " ".join(e.name.split()), attrs, flags, e.is_new)

    @property
    def value(self) -> str:
        return self.attrs.get("value", "")

    @property
    def checked(self) -> bool:
        return "checked" in self.flags

    @property
    def frame(self) -> str | None:
        return self.attrs.get("frame")

    def label(self) -> str:
        """Name, else placeholder: what a person would call the element."""
        return self.name or self.attrs.get("placeholder", "")


@dataclass
class OracleView:
    task: str
    url: str
    elements: list[El]
    """The elements the prompt lists: those in the viewport."""
    more_below: int
    text: str
    """The page's visible text."""
    focused: int | None
    history: list[PastAction]
    page: str
    """The page as the prompt renders it (searched by ``answer_from``)."""
    output_schema: dict[str, Any] | None = None
    """The JSON schema ``done``'s data must match (typed values for ``data_rows``)."""
    more_above: int = 0
    """Interactive elements above the viewport (the page was scrolled past them)."""

    @classmethod
    def of(cls, view: ModelView) -> OracleView:
        obs = view.observation
        return cls(
            task=view.task,
            url=obs.url,
            elements=[El.of(e) for e in obs.elements if e.in_viewport],
            more_below=obs.summary.below,
            text=obs.summary.visible_text,
            focused=obs.summary.focused,
            history=list(view.history),
            page=render_observation(obs),
            output_schema=view.output_schema,
            more_above=obs.summary.above,
        )

    @property
    def said(self) -> str:
        """Everything the history shows: each action and what it returned (script values, element lists)."""
        return "\n".join(h.line for h in self.history)

    def acted_on(self, el: El, action: str) -> bool:
        """True when an ``action`` on ``el`` (by index) succeeded earlier in the run."""
        return any(h.ok and h.name == action and h.index == el.index for h in self.history)
