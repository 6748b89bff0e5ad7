"""Healing a replay with a model (issue 32, item 3): a step that cannot be replayed — its target not found or
not found for sure, its action failed, its effect diverged — is done by the model for that step only, and the
replay goes on; when the model cannot do it, the page has moved beyond the recorded path and the agent takes
over the rest of the task.

Both are runs of the one planner loop (``Agent``) in the replay's own environment, so every action the model
asks for goes through the same ``act`` path and safety gate as the replayed ones. The model is shown the
replayed actions as its history and, for one step, the step's intent built from the recorded step and its
target's fingerprint ("click the button "Add to cart" under the heading "Sky Blue Espresso Mug" ...").
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kite_browser.agent.base.events import EventSink
from kite_browser.agent.base.result import RunResult, StopReason
from kite_browser.agent.browser.observation import Fingerprint
from kite_browser.agent.config import KiteConfig
from kite_browser.agent.llm.model import Model, PastAction
from kite_browser.agent.run.loop import Agent
from kite_browser.agent.run.prompt import render
from kite_browser.agent.run.stop import StopWhen
from kite_browser.agent.workflow.model import Step, fill

if TYPE_CHECKING:
    from kite_browser.agent.protocols import Environment

HEAL_STEPS = 4
"""Model steps one healed step may take (e.g. close a banner, then the step, then ``done``)."""

VERBS = {"type": "type {text} into", "select": "select {value} in", "pressKey": "press {key} on"}


def _target_words(fp: Fingerprint) -> str:
    what = f'the {fp.role or fp.tag} "{fp.name or fp.label or fp.attrs.get("name", "")}"'
    if fp.heading:
        what += f' under the heading "{fp.heading}"'
    near = [n for n in fp.neighbours if n and n not in (fp.name, fp.heading)][:2]
    if near:
        what += " (next to " + ", ".join(f'"{n}"' for n in near) + ")"
    return what


def intent_of(step: Step, values: dict[str, str]) -> str:
    """What the step does, in words a model can act on: its action and arguments (variables filled in) and
    its target as the fingerprint names it — role, name, nearest heading, neighbours' text."""
    args = fill(step.args, values)
    if step.action == "dragDrop":
        start = _target_words(step.target) if step.target is not None else f"the point {args.get('from')}"
        end = _target_words(step.drop) if step.drop is not None else f"the point {args.get('to')}"
        return f"drag {start} onto {end}"
    if step.target is None:
        shown = ", ".join(f"{k}={v!r}" for k, v in args.items())
        return f"{step.action} {shown}".strip()
    verb = VERBS.get(step.action, step.action)
    verb = verb.format(**{k: repr(str(args.get(k, ""))) for k in ("text", "value", "key")})
    return f"{verb} {_target_words(step.target)}"


@dataclass
class Healing:
    """What a model's run in the replay did: its result and the actions it took (its history past the
    replay's)."""

    result: RunResult
    actions: list[PastAction] = field(default_factory=list)

    @property
    def healed(self) -> bool:
        """The step was done: the model said so (``done`` with success), or its effect was seen."""
        r = self.result
        return (r.stop_reason == StopReason.DONE and r.success) or r.stop_reason == StopReason.TASK_ENDED


class Healer:
    """Runs the model in a replay's environment: ``heal`` one step, or ``take_over`` the rest of the task.
    ``model``: the model (default: the one ``config.llm`` names); ``task``: the task to take over (default:
    the workflow's own)."""

    def __init__(
        self,
        config: KiteConfig,
        model: Model | None = None,
        *,
        task: str | None = None,
        on_event: EventSink | None = None,
    ) -> None:
        self.config, self.model, self.task, self.on_event = config, model, task, on_event

    @property
    def model_name(self) -> str | None:
        return self.model.name if self.model is not None else self.config.llm.model

    def _agent(
        self, env: Environment, max_steps: int, label: str, stop_when: StopWhen | None = None
    ) -> Agent:
        config = self.config.model_copy(
            update={"agent": self.config.agent.model_copy(update={"max_steps": max_steps})}
        )
        return Agent(
            config,
            model=self.model,
            env=env,
            on_event=self.on_event,
            label=f"{label}-{secrets.token_hex(3)}",  # a folder of its own, also within the same second
            stop_when=stop_when,
        )

    async def heal(
        self,
        env: Environment,
        *,
        task: str,
        step: int,
        steps: int,
        intent: str,
        why: str,
        variables: dict[str, str],
        past: Sequence[PastAction],
        done_when: Callable[[list[PastAction]], bool],
    ) -> Healing:
        """The model does step ``step`` (``intent``) and only it; ``done_when(actions)`` says when what it
        did already shows the step's recorded effect (the run then stops without asking it again)."""
        agent: list[Agent] = []

        async def effect_seen(_env: Environment) -> str | None:
            actions = agent[0].history[len(past) :]
            return "the step's recorded effect is seen" if actions and done_when(actions) else None

        agent.append(self._agent(env, HEAL_STEPS, f"heal-step{step}", effect_seen))
        text = render(
            "heal.j2",
            task=self.task or task or "(the workflow has no task text)",
            variables=_shown(variables),
            step=step,
            steps=steps,
            intent=intent,
            why=why,
        )
        result = await agent[0].run(text, past=past)
        return Healing(result, agent[0].history[len(past) :])

    def can_take_over(self, task: str) -> bool:
        return bool((self.task or task).strip())

    async def take_over(
        self, env: Environment, *, task: str, why: str, variables: dict[str, str], past: Sequence[PastAction]
    ) -> Healing:
        """The agent finishes the task from the current page, with the replayed actions as its history."""
        agent = self._agent(env, self.config.agent.max_steps, "takeover")
        text = render("heal.j2", task=self.task or task, variables=_shown(variables), intent="", why=why)
        result = await agent.run(text, past=past)
        return Healing(result, agent.history[len(past) :])

    async def answer(self, env: Environment, *, task: str, why: str, past: Sequence[PastAction]) -> Healing:
        """One model call for the answer alone, on the page every step was replayed to."""
        agent = self._agent(env, 1, "answer")
        text = render("heal.j2", task=self.task or task, variables="", intent="", why=why, answer=True)
        result = await agent.run(text, past=past)
        return Healing(result, agent.history[len(past) :])


def _shown(variables: dict[str, str]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in variables.items())
