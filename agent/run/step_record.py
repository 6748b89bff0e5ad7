"""One line of ``steps.jsonl``: the record of one step, built as the step goes and written once when it ends."""

from __future__ import annotations

import hashlib

from pydantic import BaseModel, Field

from kite_browser.agent.base.levels import ConfirmLevel
from kite_browser.agent.base.toolset import JsonObject
from kite_browser.agent.browser.observation import ActionResult, ErrorInfo, Observation
from kite_browser.agent.llm.client import LLMReply, Usage
from kite_browser.agent.run.ask_alone import AskedRecord


class PageDigest(BaseModel):
    """What the step record keeps of a page: url, title, element count and a hash of what the model saw."""

    url: str
    title: str
    elements: int
    hash: str

    @classmethod
    def of(cls, obs: Observation) -> PageDigest:
        names = "|".join(f"{e.index}:{e.name}:{e.value}:{e.checked}" for e in obs.elements)
        page = f"{obs.url}|{obs.summary.scroll}|{obs.summary.visible_text}|{names}"
        h = hashlib.sha1(page.encode()).hexdigest()[:12]
        return cls(url=obs.url, title=obs.summary.title, elements=len(obs.elements), hash=h)


class GateOutcome(BaseModel):
    """What the safety gate decided about an action."""

    level: ConfirmLevel
    reasons: list[str] = Field(default_factory=list)
    allowed: bool


class ActionOutcome(BaseModel):
    """One action of a step: what it was, what the safety gate said, what happened."""

    action: dict[str, object]
    decision: GateOutcome | None = None
    """level, reasons and whether the gate allowed it (None for the start URL's navigation)."""
    result: ActionResult


class ToolCallRecord(BaseModel):
    """A call to a module tool or the user's own tool (``agent.module_tools``, ``Agent(tools=[fn])``)."""

    tool: str
    arguments: str
    """The arguments as the model wrote them (JSON text)."""
    result: JsonObject
    """The tool's JSON result, or its typed error."""


class StepRecord(BaseModel):
    """A step; only the fields the step reached are written (a step whose model call failed has no actions)."""

    step: int
    url: str | None = None
    prompt_tokens_est: int | None = None
    observation: PageDigest | None = None
    overhead_ms: dict[str, float] = Field(default_factory=dict)
    """Kite's own time: observe+prompt before the model call, act after it."""
    phases_ms: dict[str, float] = Field(default_factory=dict)
    """Where the step's time went, per phase (``agent/browser/timing.py``): observe, render, prompt, model (the
    model call: not Kite's), parse, gate, act, settle, record (the request's write and the previous step's line)."""
    recovered: str | None = None
    """The page stopped responding while it was observed: its tab was closed (what the model was told)."""
    blocked: list[str] = Field(default_factory=list)
    """Requests the domain policy stopped while no action ran (a page's timer, a late redirect), with why."""
    request: dict[str, object] | None = None
    """What was sent to the model (``RunRecorder.request``): the messages, the system message and the tools
    by reference to ``sent/`` (stored once per run), an image by its screenshot file. Redacted."""
    asked: AskedRecord | None = None
    """The question asked alone before the step's reply (agent/run/ask_alone.py), when one was."""
    reply: LLMReply | None = None
    """The model's reply as received: its text and tool calls (arguments as the raw JSON it wrote)."""
    usage: Usage | None = None
    thought: str | None = None
    said: dict[str, str] = {}
    """The reply's own notes (its plan, done so far, next: ``reply_schema.OWN_NOTES``)."""
    policies: dict[str, list[str]] = {}
    """The step policies that acted in this step, with where (``Policies.acted``: notes, withheld, refused,
    result, stopped)."""
    actions: list[ActionOutcome] = Field(default_factory=list)
    tools: list[ToolCallRecord] = Field(default_factory=list)
    """Calls to module tools and the user's own tools (``agent.module_tools``)."""
    error: ErrorInfo | None = None
    """The model call failed (the run stops)."""
    parse_error: ErrorInfo | None = None
    """The reply could not be used (the model is told why and the run goes on)."""
    by: str | None = None
    """A replay's step: ``replayed`` (no model), ``healed`` (the model did this step only) or ``agent`` (the
    agent took over the rest of the task); None in an agent's own run."""
    sub_run: str | None = None
    """A healed or agent step of a replay: the folder of the model's run that did it (its full record)."""
    model_calls: int | None = None
    """A healed step: the model calls it took."""

    def to_json(self) -> JsonObject:
        """The JSON form without the parts the step never reached (empty or unset top-level fields)."""
        data = self.model_dump(mode="json", by_alias=True)
        return {k: v for k, v in data.items() if k == "step" or v not in (None, [], {})}
