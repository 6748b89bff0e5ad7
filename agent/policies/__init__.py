"""The step policies: every aid that decides about the task or the page, behind one ``StepPolicy`` seam
(``base.py``), each switched by name in the config (``agent.policies``)."""

from __future__ import annotations

from collections.abc import Callable

from kite_browser.agent.config import AgentConfig
from kite_browser.agent.config.sections import POLICY_NAMES
from kite_browser.agent.policies.base import (
    Notes,
    Policies,
    Policy,
    Proposed,
    Ran,
    StepPlan,
    StepPolicy,
    StepView,
    Withheld,
)
from kite_browser.agent.policies.claims import Claims
from kite_browser.agent.policies.goal import GoalReached
from kite_browser.agent.policies.loop_guard import LoopGuard
from kite_browser.agent.policies.no_ops import NoOps
from kite_browser.agent.policies.notes import AnswerNext, NamedPlace, OutOfView, Recap
from kite_browser.agent.policies.own_plan import OwnPlan
from kite_browser.agent.policies.person import PersonNeeded
from kite_browser.agent.policies.quoted_text import QuotedText
from kite_browser.agent.policies.repeats import Repeats
from kite_browser.agent.policies.unfilled import Unfilled

MAKERS: dict[str, Callable[[AgentConfig], Policy]] = {
    "repeats": lambda _: Repeats(),
    "unfilled": lambda _: Unfilled(),
    "loop_guard": LoopGuard,
    "no_ops": lambda _: NoOps(),
    "recap": lambda _: Recap(),
    "own_plan": lambda _: OwnPlan(),
    "answer_next": lambda _: AnswerNext(),
    "out_of_view": lambda _: OutOfView(),
    "quoted_text": lambda _: QuotedText(),
    "named_place": lambda _: NamedPlace(),
    "claims": lambda _: Claims(),
    "goal_reached": lambda _: GoalReached(),
    "person_needed": lambda _: PersonNeeded(),
}
"""Each policy by its name (``POLICY_NAMES``, the config's), made fresh for a run."""
assert tuple(MAKERS) == POLICY_NAMES, "every policy has a name in the config, and only those"


def build(config: AgentConfig, *, constrained: bool, function_calling: bool) -> Policies:
    """A run's policies: those the config enables for this kind of model, in ``POLICY_NAMES`` order."""
    names = config.policies.enabled(constrained=constrained, function_calling=function_calling)
    return Policies((MAKERS[name](config) for name in names), constrained=constrained)


__all__ = [
    "MAKERS",
    "POLICY_NAMES",
    "Notes",
    "Policies",
    "Policy",
    "Proposed",
    "Ran",
    "StepPlan",
    "StepPolicy",
    "StepView",
    "Withheld",
    "build",
]
