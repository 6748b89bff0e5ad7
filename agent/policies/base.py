"""The seam of the step aids: one ``StepPolicy`` protocol and the list the loop calls at three points.

A step, as the loop runs it: ``before`` (what each policy adds to the prompt and withholds from the reply's
offers), then for each action of the reply ``refuse`` (a policy may hold it back or drop it before the gate
sees it) and ``learn`` (what it ran and what that did). The loop owns the order; the policies own every
decision about the task or the page. A policy withholds an offer only on a fact of the page or the run (an
element not there, a control already in that state, an exact repeat that changed nothing); what it guesses
from the task's words it says in the prompt, never enforces.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from kite_browser.agent.browser.actions import Action
from kite_browser.agent.browser.observation import ActionResult, Element, Observation
from kite_browser.agent.llm.model import PastAction
from kite_browser.agent.policies.recap import Progress, progress


class Reader(Protocol):
    """What a policy may ask of the page before an action runs (the environment's read-only door)."""

    async def read_each(self, indexes: list[int], js: str) -> dict[int, object]: ...


@dataclass(frozen=True)
class StepView:
    """What every policy sees before the model is asked: the task, this step's page, the run so far."""

    task: str
    step: int
    obs: Observation
    history: Sequence[PastAction]
    urls: Mapping[int, str]
    """The URL each earlier step (with actions) was on."""
    progress: Progress
    """``recap.progress(task, history)``: computed once per step, for every policy that reads it."""
    constrained: bool = False


@dataclass
class Notes:
    """What the policies add to one step's prompt: lines for its Attention section and the recap's parts."""

    lines: list[str] = field(default_factory=list)
    recap: dict[str, list[str]] = field(default_factory=dict)
    repeating: bool = False
    """The prompt tells the model it is repeating itself (a client may then sample it warmer)."""
    ask: list[str] = field(default_factory=list)
    """The model's own notes a constrained reply carries this step (``reply_schema.OWN_NOTES``)."""
    question: str | None = None
    """The task's part to ask a constrained model about alone before the step's reply: does this page show
    it (agent/run/ask_alone.py)."""


@dataclass
class Withheld:
    """What a constrained reply is not offered on this page: whole actions and (action, index) pairs."""

    names: set[str] = field(default_factory=set)
    pairs: set[tuple[str, int]] = field(default_factory=set)

    def add(self, other: Withheld) -> None:
        self.names |= other.names
        self.pairs |= other.pairs


@dataclass(frozen=True)
class Proposed:
    """An action of the reply, about to run: the page it was chosen on and the reply's earlier actions."""

    action: Action
    element: Element | None
    obs: Observation
    step: int
    earlier: Sequence[tuple[Action, ActionResult]]
    """The actions of this reply that already ran (or were held), with their results."""
    page: Reader


@dataclass(frozen=True)
class Ran:
    """An action that ran (or was held back), with its result; ``last``: no action of the reply follows it."""

    action: Action
    element: Element | None
    result: ActionResult
    obs: Observation
    step: int
    last: bool
    ran: Sequence[tuple[Action, ActionResult | None]]
    """Every action of this step so far, this one included, with its result."""
    said: Mapping[str, str] = field(default_factory=dict)
    """The reply's own notes (its plan, done so far, next), as the model wrote them."""


@dataclass
class StepPlan:
    """What ``Policies.before`` gives the loop for one step."""

    view: StepView
    notes: Notes
    withheld: Withheld


@runtime_checkable
class StepPolicy(Protocol):
    """One step aid. ``name`` switches it in the config (``agent.policies``); ``reason`` says in one
    present-tense sentence what it is for. Every method has a do-nothing default in ``Policy``."""

    name: str
    reason: str

    def notes(self, view: StepView) -> Notes: ...

    def withheld(self, view: StepView) -> Withheld: ...

    async def refuse(self, proposed: Proposed) -> ActionResult | None: ...

    def learn(self, ran: Ran) -> None: ...


class Policy:
    """A ``StepPolicy`` that does nothing at every point; a policy overrides the points it acts at."""

    name = ""
    reason = ""
    held_as: frozenset[str] = frozenset()
    """The error types of the actions it holds back: the loop counts them as no failed step."""

    def notes(self, view: StepView) -> Notes:
        return Notes()

    def withheld(self, view: StepView) -> Withheld:
        return Withheld()

    async def refuse(self, proposed: Proposed) -> ActionResult | None:
        return None

    def learn(self, ran: Ran) -> None:
        return None


class Policies:
    """The enabled policies, in order; the loop's only door to them."""

    def __init__(self, policies: Iterable[Policy], constrained: bool = False) -> None:
        self.all = list(policies)
        self.constrained = constrained
        self.held_as = frozenset(t for p in self.all for t in p.held_as)
        self.acted: dict[str, list[str]] = {}
        """The policies that changed something this step, by name, with where: ``notes`` (the prompt or the
        reply's schema), ``withheld`` (an offer), ``refused`` (an action held or dropped), ``result`` (what an
        action's result says: ``claims``' verdict on a ``done``), ``stopped`` (the run). A policy that acted in
        no step of a run changed nothing in it: off, the run sends the same requests (given the same replies)
        and reports the same result. The step record's ``policies``; the run's ``policies_acted``."""

    def _acted(self, policy: Policy, where: str) -> None:
        points = self.acted.setdefault(policy.name, [])
        if where not in points:
            points.append(where)

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.all]

    def before(
        self, task: str, step: int, obs: Observation, history: Sequence[PastAction], urls: Mapping[int, str]
    ) -> StepPlan:
        """Every policy's notes for this step's prompt and what the reply is not offered (``progress``
        computed once, here)."""
        view = StepView(task, step, obs, list(history), dict(urls), progress(task, history), self.constrained)
        notes, withheld = Notes(), Withheld()
        self.acted = {}
        for p in self.all:
            got = p.notes(view)
            if got.lines or got.recap or got.repeating or got.ask or got.question is not None:
                self._acted(p, "notes")
            notes.lines += got.lines
            notes.recap.update(got.recap)
            notes.repeating = notes.repeating or got.repeating
            notes.ask += got.ask
            notes.question = notes.question or got.question
            if ((held := p.withheld(view)).names or held.pairs) and self.constrained:  # else never offered
                self._acted(p, "withheld")
            withheld.add(held)
        return StepPlan(view, notes, withheld)

    async def refuse(self, proposed: Proposed) -> ActionResult | None:
        """The first policy's refusal of ``proposed`` (a held or dropped action's result), or None to run it."""
        for p in self.all:
            if (held := await p.refuse(proposed)) is not None:
                self._acted(p, "refused")
                return held
        return None

    def learn(self, ran: Ran) -> None:
        """Every policy learns what ran (a policy may stop the run: ``Stop``)."""
        for p in self.all:
            data = dict(ran.result.data)
            try:
                p.learn(ran)
            except Exception:
                self._acted(p, "stopped")
                raise
            if ran.result.data != data:
                self._acted(p, "result")
