"""What a run reports: ``RunResult``, the actions it refused, and why it stopped (``StopReason``)."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field, computed_field


class StopReason(StrEnum):
    """Why a run ended (``RunResult.stop_reason``; a value is its JSON form)."""

    DONE = "done"
    """The model called ``done`` (``success`` says whether it claims the task is done)."""
    MAX_STEPS = "max_steps"
    MAX_FAILURES = "max_failures"
    LOOP_DETECTED = "loop_detected"
    MAX_COST = "max_cost"
    MAX_TOKENS = "max_tokens"
    INTERRUPTED = "interrupted"
    TASK_ENDED = "task_ended"
    """The task ended by itself (``StopWhen``: a MiniWoB episode is over)."""
    INVALID_OUTPUT = "invalid_output"
    """``done``'s data did not match the output schema after the last try."""
    START_URL_UNREACHABLE = "start_url_unreachable"
    MODEL_ERROR = "model_error"
    ERROR = "error"
    RUNNER_ERROR = "runner_error"
    """A batch task Kite could not run at all (no browser context, a bug): no agent run behind it."""
    NEEDS_HUMAN = "needs_human"
    """The model (or Kite) asked for a person to take over, and nobody could in this run (batch, eval, MCP):
    the message says what the person was needed for."""
    REPLAY_DIVERGED = "replay_diverged"
    """A replayed workflow left its recorded path and no model took it back: a step's target was not found
    or not found for sure (two alike), its effect differed, it failed or was declined. The message names the
    step and what was looked for."""


ERROR_STOPS: frozenset[StopReason] = frozenset(
    {StopReason.ERROR, StopReason.MODEL_ERROR, StopReason.START_URL_UNREACHABLE, StopReason.RUNNER_ERROR}
)
"""The one list of stop reasons that mean Kite or its surroundings failed, not the agent's work."""


class RefusedAction(BaseModel):
    """An action the safety gate did not run (the user declined it, or the policy blocked it)."""

    step: int
    action: str
    """The action as described to the user ("click button \"Permanently delete\"")."""
    outcome: Literal["declined", "blocked", "refused", "dismissed"]
    """declined | blocked (by the gate, before it ran) | refused (its target changed at the input and the
    second look or the input guard cancelled it) | dismissed (the page's sensitive dialog was dismissed)"""
    reason: str = ""


class RunResult(BaseModel):
    """What ``Agent.run`` returns."""

    success: bool
    claimed_success: bool = False
    """What the model said (``done(success=...)``); ``success`` is Kite's reading of the run: a claimed success
    is not a success while an action the run needed was declined or blocked (``declined``)."""
    verified: bool | None = None
    """Whether the pages bore out a claimed success (a cart count, a listing, the answer's prices and names
    found on a page the run saw): False when the page contradicted it and the model insisted (then ``success``
    is False); None when nothing was checked (no claimed success, nothing checkable, ``claims`` off)."""
    verification: str = ""
    """The evidence behind ``verified``: what the page contradicts, or what it bore out."""
    declined: list[RefusedAction] = Field(default_factory=list)
    """Actions declined by the user or blocked by the policy and never run afterwards with approval."""
    answer: str = ""
    data: object = None
    """``done``'s structured answer (JSON): validated against the output schema when one was given."""
    output: object = Field(None, exclude=True)
    """``data`` as the Python value of ``Agent(output_type=...)`` (a pydantic model's instance); not in the
    JSON form of the result (``data`` is)."""
    stop_reason: StopReason
    message: str = ""
    steps: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float | None = None
    duration_s: float = 0.0
    model_latency_s: float = 0.0
    model_calls: int | None = None
    """Calls to the model (replies received): 0 for a workflow replayed without one; None where not counted."""
    policies_acted: dict[str, int] = Field(default_factory=dict)
    """Each step policy the run had on (``agent.policies``), with the steps in which it acted: changed the
    prompt, withheld an offer, held an action or wrote into a result (``Policies.acted``). One at 0 changed
    nothing in this run: off, the run would have sent the same requests."""
    steps_by: dict[str, int] | None = None
    """A replay's steps by who did them: ``replayed`` (no model), ``healed`` (the model did that step only),
    ``agent`` (the agent took over the rest of the task: its steps). None for an agent's run."""
    model_calls_saved: int | None = None
    """A cached run (``--cache``) that replayed: the model calls of the run it was recorded from, less the
    calls this run made (never below 0). None when nothing was replayed."""
    replies_rejected: int = 0
    """Replies of the model that held no action Kite could run (each answered with a correction)."""
    actions_refused: int = 0
    """Actions refused because their target was not on the page (``stale_element``: an index from an older
    page, or one the page never had)."""
    run_dir: str | None = None
    final_url: str | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def replayed(self) -> bool:
        """The run replayed a workflow (``kite replay``, a cached task, a task's ``workflow``)."""
        return self.steps_by is not None

    @property
    def caveat(self) -> str:
        """What a plain ok / failed mark would hide, for every table and panel that shows this result ('' if
        nothing; the one rule of honest tables): ``success`` (a run's reading, or a task's check) differs from
        what the model said calling ``done``, a claim the page contradicted, and actions that were declined or
        blocked."""
        notes = []
        if self.stop_reason == StopReason.DONE and self.success != self.claimed_success:
            notes.append("the model said it failed" if self.success else "the model claimed success")
        if self.verified is False:
            notes.append("its claim unverified: the page contradicted it")
        if self.declined:
            notes.append(f"{len(self.declined)} action{'s' if len(self.declined) > 1 else ''} declined")
        return ", ".join(notes)
