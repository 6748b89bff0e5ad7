"""Render the prompts (Jinja2 files in ``prompts/``, StrictUndefined) into chat messages.

The structure lives in the templates, the words in ``prompts/strings.yaml`` (one entry per language), and the
action catalogue is generated from the action models — nothing is written twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

import jinja2
import yaml

from kite_browser.agent.base.fence import defuse
from kite_browser.agent.base.resources import resource_dir, resource_path
from kite_browser.agent.browser.observation import Observation
from kite_browser.agent.browser.render import render_observation, render_summary
from kite_browser.agent.browser.tokens import estimate_tokens
from kite_browser.agent.browser.tokens import warm_up as warm_tokens
from kite_browser.agent.llm.chat import ChatMessage, ContentPart
from kite_browser.agent.llm.schemas import action_catalog

__all__ = ["PromptBuilder", "action_catalog", "render", "strings", "warm_up"]


@cache
def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(resource_dir("prompts"))),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=False,
        autoescape=False,
        trim_blocks=False,
    )


@cache
def strings(language: str) -> dict[str, str]:
    data = yaml.safe_load(resource_path("prompts", "strings.yaml").read_text(encoding="utf-8"))
    if language not in data:
        raise KeyError(f"no prompt strings for language '{language}' (have: {', '.join(data)})")
    return data[language]


@cache
def _system(
    language: str,
    mode: str,
    secret_names: tuple[str, ...],
    vision: bool,
    function_calling: bool,
    constrained: bool = False,
    own_notes: bool = False,
) -> str:
    return (
        _env()
        .get_template("system.j2")
        .render(
            t=strings(language),
            observation_mode=mode,
            secret_names=list(secret_names),
            vision=vision,
            function_calling=function_calling,
            constrained=constrained,
            own_notes=own_notes,
            actions=action_catalog(vision),
        )
    )


@cache
def _task_part(language: str, task: str, output_schema: str | None) -> str:
    return _env().get_template("task.j2").render(t=strings(language), task=task, output_schema=output_schema)


@dataclass
class PromptBuilder:
    """Everything about a run that shapes the prompt and does not change between steps.

    The system message holds nothing task-specific, so it is the same for every task of a model and mode:
    providers' prompt caches and a local server's prefix cache reuse it across tasks. The task opens the
    user message."""

    task: str
    language: str = "en"
    function_calling: bool = True
    vision: bool = False
    observation_mode: str = "auto"
    max_steps: int = 30
    secret_names: list[str] = field(default_factory=list)
    output_schema: str | None = None
    """The JSON schema ``done``'s ``data`` must match, as shown each step (in the user message: it is the
    task's, so the system message stays the same for every task)."""
    constrained: bool = False
    """Replies are decoded under the step's reply schema: the system message shows its JSON object form."""
    own_notes: bool = False
    """A constrained reply carries the model's own notes (plan, done so far, next: the ``own_plan`` policy)."""

    def system(self) -> str:
        """The system message; rendered once per distinct setting (it is the same for every step and task)."""
        return _system(
            self.language,
            self.observation_mode,
            tuple(self.secret_names),
            self.vision,
            self.function_calling,
            self.constrained,
            self.own_notes,
        )

    def task_part(self) -> str:
        """The user message's opening (the task and its answer format): the same every step, so with the
        system message it is the prompt's stable prefix that a server's prompt cache keeps (llama.cpp reads
        only what follows it again). Every user message starts with it."""
        return _task_part(self.language, self.task, self.output_schema)

    def user(
        self,
        *,
        step: int,
        history: list[str],
        results: list[str],
        warnings: list[str],
        page: str,
        recap: dict[str, list[str]] | None = None,
    ) -> str:
        """The step's user message; ``recap`` (``agent.recap``): what earlier pages achieved, what this one
        offers toward the task."""
        return (
            _env()
            .get_template("observation.j2")
            .render(
                t=strings(self.language),
                task=self.task,
                output_schema=self.output_schema,
                step=step,
                max_steps=self.max_steps,
                history=history,
                results=results,
                warnings=warnings,
                page=page,
                recap=recap
                or {"done": [], "parts": [], "next": [], "all_done": [], "answer": [], "offers": []},
            )
        )

    def messages(self, user_text: str, screenshot_b64: str | None = None) -> list[ChatMessage]:
        content: str | list[ContentPart] = user_text
        if screenshot_b64 and self.vision:
            content = [
                {"type": "text", "text": user_text},
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{screenshot_b64}"}},
            ]
        return [{"role": "system", "content": self.system()}, {"role": "user", "content": content}]


def warm_up(builder: PromptBuilder, model: str) -> None:
    """Pay now what a run's first step would pay once: the templates compiled, the system message rendered
    and counted with ``model``'s token counter (for most models that imports litellm: seconds of CPU), the
    page's tokenizer loaded. The loop runs it in a thread while the browser starts, so the first step costs
    what the others do; the results are cached (the step's own count of the system message is a hit)."""
    try:
        estimate_tokens(model, builder.system())
        builder.task_part()
        _env().get_template("observation.j2")
        warm_tokens()
    except Exception:  # a warm-up only: the step does the same work and reports any failure itself
        return


def page_text(obs: Observation, *, layered: bool, budget_tokens: int) -> str:
    """The page as the model sees it; the untrusted fence cannot be closed from inside the page. Kite's
    own notes about the snapshot (``summary.warnings``) are not page content: ``kite_notices`` has them."""
    if obs.summary.warnings:
        obs = obs.model_copy(update={"summary": obs.summary.model_copy(update={"warnings": []})})
    text = render_summary(obs.summary) if layered else render_observation(obs, budget_tokens=budget_tokens)
    return defuse(text)


def kite_notices(obs: Observation) -> list[str]:
    """Kite's notes about this observation, shown outside ``<untrusted_page>`` (in the Attention section)."""
    return [f"page snapshot: {w}" for w in obs.summary.warnings]


def render(template: str, **values: object) -> str:
    """One of ``prompts/``'s templates rendered on its own (a workflow's healing task, agent/workflow/heal.py)."""
    return _env().get_template(template).render(**values).strip()
