"""The model's own plan and notes: a constrained reply carries a short plan on the first step and "done so far" /
"next" on later ones; Kite shows them back each step and checks "done so far" against what the run verified.

The notes replace a guess from the task's words by the model's own reading of the task, and they are checked,
never trusted: a note that says something was added to a cart while the page's cart counter says otherwise, or
that text was typed while no ``type`` ran, is corrected in the next prompt with the fact that contradicts it.
Only a constrained reply (decoded under the step's reply schema) is asked for them; other models keep their
own reasoning in their replies.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kite_browser.agent.base.fence import defuse
from kite_browser.agent.browser.observation import Observation
from kite_browser.agent.llm.model import PastAction
from kite_browser.agent.llm.reply_schema import OWN_NOTES
from kite_browser.agent.policies.base import Notes, Policy, Ran, StepView
from kite_browser.agent.policies.evidence import counters, holder_claims, page_text

PLAN, DONE, NEXT = OWN_NOTES
"""The reply's own-note fields, in ``reply_schema.OWN_NOTES``' order."""
NOTE_CHARS = 200
"""Longest note shown back (the schema bounds them anyway; a note from a forgiving parse may be longer)."""
_ADDED = re.compile(r"\badd(?:ed|s)?\b[^.;]{0,60}\b(cart|basket|bag|trolley)\b", re.IGNORECASE)
_TYPED = re.compile(r"\b(typed|entered|filled(?: in)?|searched|wrote|input)\b", re.IGNORECASE)
_SELECTED = re.compile(r"\b(selected|chose|chosen|picked)\b", re.IGNORECASE)


class OwnPlan(Policy):
    """Asks a constrained reply for its plan, then "done so far" and "next"; shows them back, checked."""

    name = "own_plan"
    reason = "A model keeps its place in a task by its own plan better than by a guess from the task's words."

    def __init__(self) -> None:
        self._plan = ""
        self._done = ""
        self._next = ""

    def notes(self, view: StepView) -> Notes:
        if not view.constrained:
            return Notes()
        recap: dict[str, list[str]] = {}
        if self._plan:
            recap["plan"] = [_shown(self._plan)]
        if self._done or self._next:
            recap["said"] = [_shown(f"done so far: {self._done or '-'}; next: {self._next or '-'}")]
        lines = []
        if wrong := contradictions(self._done, view.obs, view.history):
            lines.append(
                f'Your note "done so far: {_shown(self._done)}" is not what Kite sees: {"; ".join(wrong)}. Go by '
                "the page and the results above."
            )
        return Notes(recap=recap, lines=lines, ask=[DONE, NEXT] if self._plan else [PLAN])

    def learn(self, ran: Ran) -> None:
        said = ran.said
        if not said:
            return
        self._plan = self._plan or said.get(PLAN, "")
        if DONE in said or NEXT in said:
            self._done, self._next = said.get(DONE, ""), said.get(NEXT, "")

    @property
    def next_step(self) -> str:
        """What the model last said it does next ("" before it said anything)."""
        return self._next


def contradictions(done: str, obs: Observation, history: Sequence[PastAction]) -> list[str]:
    """What the page and the run's history say against a "done so far" note: a cart count the page's counter
    contradicts, something "added" to a cart whose counter shows 0, text "typed" or an option "selected" when
    no such action ran and worked."""
    if not done:
        return []
    out: list[str] = []
    shown = counters(page_text(obs))
    for claim in holder_claims(done):
        if claim.holder in shown and shown[claim.holder] != claim.count:
            out.append(
                f'it says "{defuse(claim.said)}", the page shows {claim.holder} ({shown[claim.holder]})'
            )
    if (m := _ADDED.search(done)) and shown.get(holder := m.group(1).lower()) == 0:
        out.append(f"the page shows {holder} (0): nothing is in it")
    worked = {p.name for p in history if p.ok}
    if _TYPED.search(done) and "type" not in worked:
        out.append("no text has been typed in this run")
    if _SELECTED.search(done) and not worked & {"select", "click"}:
        out.append("nothing has been selected or clicked in this run")
    return out


def _shown(text: str) -> str:
    """A note as the prompt shows it: one line, bounded, fence markers defused (it may echo page words)."""
    line = " ".join(text.split())
    return defuse(line[: NOTE_CHARS - 1] + "…" if len(line) > NOTE_CHARS else line)
