"""The wire models of the runs API (requests, the run as GET /api/runs/{id} shows it, confirmations)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from kite_browser.agent.base.levels import ConfirmLevel
from kite_browser.agent.base.result import RunResult
from kite_browser.agent.server.errors import ErrorBody

RunStatus = Literal["running", "finished", "failed", "stopped"]
Outcome = Literal["running", "success", "failed", "denied", "stopped"]


def outcome_of(status: str, result: RunResult | None) -> Outcome:
    """How a run ended, as the panel's badges say it (one function for the list, the header and the records):
    ``stopped`` by a person; ``success`` only for a success with no caveat (``RunResult.caveat``, the rule of
    every honest table: a claimed success with a declined action is not one); ``denied`` when an action was
    declined or blocked; else ``failed``."""
    if status == "running":
        return "running"
    if status == "stopped":
        return "stopped"
    if result is not None and result.success and not result.caveat:
        return "success"
    if result is not None and result.declined:
        return "denied"
    return "failed"


class RunRequest(BaseModel):
    """What to run. Secrets are asked for by name: their values come from the server's own config
    (``safety.secrets``, ``KITE_SECRET_*``, ``kite serve --secret``) and never travel in a request."""

    model_config = ConfigDict(extra="forbid")
    task: str = Field(min_length=1, max_length=20_000, description="What Kite should do, in plain language.")
    start_url: str | None = Field(None, max_length=4096, description="Open this URL first.")
    model: str | None = Field(
        None, min_length=1, max_length=200, description="litellm model string; default: the server's."
    )
    max_steps: int | None = Field(None, ge=1, le=1000, description="Stop after this many steps.")
    allowed_domains: list[str] | None = Field(
        None, max_length=100, description="Only these domains (and subdomains); default: the server's."
    )
    secrets: list[str] = Field(
        default_factory=list, max_length=50, description="Names of the server's secrets this run may type."
    )
    output_schema: dict[str, Any] | None = Field(  # a JSON schema (free-form)
        None, description="A JSON schema done's data must match (the run's structured answer)."
    )
    approve: list[Literal["confirm", "notify"] | str] | None = Field(
        None,
        max_length=50,
        description="Levels or action names approved without asking (e.g. confirm, executeJS); default: ask.",
    )
    vision: bool | None = Field(
        None, description="Show the model a screenshot each step; default: its capabilities."
    )
    cache: bool = Field(
        False,
        description=(
            "Run through the task cache, as kite run --cache: a task run before (same task, start URL's host "
            "and path) replays its saved workflow with no model call, healing with the model where the page "
            "changed; a new one runs the agent and is saved when it succeeds. The result says model_calls_saved."
        ),
    )
    profile: str | None = Field(
        None,
        max_length=200,
        description=(
            "Run in the persistent browser profile NAME (its cookies and storage kept between runs), on a "
            "browser of its own; letters, digits, '.', '_' or '-' (at most 64). One run at a time per profile: "
            "a second one is refused (409 profile_in_use). Default: a fresh context of the shared browser."
        ),
    )


class ActionView(BaseModel):
    action: str
    """As the model was shown it: ``click [6] button "Add to cart"``."""
    level: ConfirmLevel = ConfirmLevel.AUTO
    allowed: bool | None = None
    ok: bool | None = None
    """None while the action runs (or when it was refused before running)."""
    message: str = ""


class StepView(BaseModel):
    step: int
    url: str = ""
    title: str = ""
    screenshot_url: str | None = None
    """GET this (with the token) for the step's screenshot."""
    tokens: int = 0
    thought: str = ""
    """The model's reply text of this step (its reasoning), shown on demand."""
    actions: list[ActionView] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)
    """Replies of the model that could not be used."""


class ConfirmationView(BaseModel):
    """A question waiting for a person (the same details the TUI's modal shows)."""

    id: str
    step: int = Field(ge=0)
    """The step the question belongs to (0: before the first step, e.g. a dialog of the start URL)."""
    action: dict[str, object]
    """The action's JSON form (secrets as ``<secret>name</secret>`` placeholders)."""
    action_text: str
    """The action as the TUI's modal shows it: ``click selector="#place-order"``."""
    target: str
    """Its target as the page shows it: ``[6] button "Place order"``, ``the page's confirm dialog "..."``,
    ``(no element: <selector or URL>)``, or "" when the action names no target (``executeJS``, a tool call)."""
    level: ConfirmLevel
    reasons: list[str]
    element: dict[str, object] | None = None
    url: str = ""
    description: str
    timeout_s: float
    created_at: str
    expires_at: str


class RunSummary(BaseModel):
    id: str
    status: RunStatus
    task: str
    model: str
    created_at: str
    finished_at: str | None = None
    step_count: int = 0
    """Steps taken so far."""
    success: bool | None = None
    stop_reason: str | None = None
    outcome: Outcome = "running"
    """success | failed | denied | stopped | running: how the run ended, for badges (``outcome_of``)."""
    caveat: str = ""
    """What the badge alone would hide (``RunResult.caveat``): "the model claimed success, 1 action declined"."""
    answer: str = ""
    """The run's answer (``done``'s), once it ended."""
    on_disk: bool = False
    """Read from its record on disk (a run of an earlier ``kite serve``, or of ``kite run``)."""


class RunView(RunSummary):
    start_url: str | None = None
    profile: str | None = None
    """The persistent browser profile the run uses (None: a fresh context)."""
    max_steps: int
    allowed_domains: list[str] = Field(default_factory=list)
    secrets: list[str] = Field(default_factory=list)
    """The names of the secrets the run may use (never their values)."""
    events: int = 0
    """How many events the run has emitted (the id of the last one)."""
    steps: list[StepView] = Field(default_factory=list)
    """Each step as it happened: page, actions with their results, screenshot."""
    result: RunResult | None = None
    error: ErrorBody | None = None
    """Why a failed run failed (``start_url_unreachable``, ``model_error``, ``browser_error`` ...)."""
    confirmations: list[ConfirmationView] = Field(default_factory=list)
    """Questions waiting for an answer."""


class RunList(BaseModel):
    runs: list[RunSummary]
    """This page of the runs that match, newest first."""
    total: int = 0
    """How many runs match (every page)."""
    models: list[str] = Field(default_factory=list)
    """The models of every run known (for a filter)."""


class ConfirmationAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")
    decision: Literal["approve", "deny"]
    similar: bool = Field(False, description="Also approve similar actions for the rest of this run.")
    reason: str = Field("", max_length=1000)


class Settings(BaseModel):
    """What the server runs with, for the panel's settings page (never a key's or a secret's value)."""

    model: str | None
    """The default model (``llm.model``)."""
    providers: list[str]
    """Providers whose API key variable is set (``OPENAI_API_KEY`` -> openai): names only."""
    allowed_domains: list[str]
    blocked_domains: list[str]
    approve: list[str]
    """Levels or actions approved without asking (``--approve``)."""
    modules: list[str]
    """The enabled tool modules."""
    secrets: list[str]
    """The names of the secrets runs may ask for."""
    runs_dir: str


class ConfirmationList(BaseModel):
    confirmations: list[ConfirmationView]


class ConfirmationResult(BaseModel):
    id: str
    approved: bool
    reason: str = ""


class RunRecord(BaseModel):
    run: dict[str, object]
    """run.json: the task, model, settings (credentials masked) and the result."""
    steps: list[dict[str, object]]
    """steps.jsonl: one object per step, as recorded; each of its ``actions`` also has ``action_text``, the
    action as the TUI words it (``click [6]``)."""
    files: list[str]
    """The files of the run folder (GET /api/runs/{id}/record/{path})."""


class HandOverView(BaseModel):
    """The browser handed to the panel's person: what to do, on which page, until when."""

    id: str
    step: int = Field(ge=0)
    question: str
    url: str = ""
    timeout_s: float
    created_at: str


class HandOverAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")
    done: bool = Field(description="true: the person did what was asked; false: they could not.")
    reason: str = Field(
        "", max_length=300, description="Why not (shown to the model: no typed secrets here)."
    )


class PageInput(BaseModel):
    """One input of the person to the run's page during a hand-over, as the live view's picture gives it:
    ``x``/``y`` as fractions of the picture (0..1), a text to type, a key, or a wheel's pixels."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["click", "type", "press", "scroll"]
    x: float | None = Field(None, ge=0, le=1)
    y: float | None = Field(None, ge=0, le=1)
    text: str | None = Field(None, min_length=1, max_length=1000)
    key: str | None = Field(None, pattern=r"^[A-Za-z0-9+]{1,32}$")
    dy: float | None = Field(None, ge=-5000, le=5000)
