"""What the planner loop hands a model: the structured view of a step and the actions taken so far. The
``Model`` protocol itself sits with the ``Environment`` in agent/protocols.py (re-exported here).

A model answers one step: ``await model.complete(messages, tools, view=view) -> LLMReply``. ``messages`` are
the chat messages (system + user, as a real model sees them); ``view`` carries the same step as structure:
the task, the step number, the observation, the tool definitions and the actions taken so far — what
pydantic-ai's ``AgentInfo`` is to its ``FunctionModel``. Real models ignore the view; test models
(``agent.llm.testing``) and the eval oracle read it instead of parsing the prompt.

``LiteLLMModel`` (``agent.llm.client``) is the one real implementation. ``agent.llm.resolve.resolve_model``
is the one door from a model string to a ``Model``.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from kite_browser.agent.base.jsontypes import JsonObject
from kite_browser.agent.browser.observation import Element, Observation
from kite_browser.agent.llm.chat import ChatTool
from kite_browser.agent.protocols import Model

__all__ = ["Model", "ModelView", "PastAction"]


class PastAction(BaseModel):
    """One action the run took, and how it went (the view's history; oldest first)."""

    step: int
    action: JsonObject
    """The action as JSON: ``{"action": "click", "index": 3}``."""
    ok: bool
    element: Element | None = None
    """The target element as it was observed when the action was chosen (None without an index)."""
    error: str | None = None
    """The error type when the action failed (``stale_element``, ``declined`` ...)."""
    line: str = ""
    """The line the model was shown for it: ``click [3] button "Go" → ok (mouse); now at …``."""

    @property
    def name(self) -> str:
        return str(self.action.get("action", ""))

    @property
    def index(self) -> int | None:
        value = self.action.get("index")
        return value if isinstance(value, int) else None


class ModelView(BaseModel):
    """One step as structure: what the prompt says, without parsing the prompt."""

    task: str
    step: int = 1
    max_steps: int = 30
    language: str = "en"
    observation: Observation
    tools: list[ChatTool] | None = None
    """The tool definitions sent with the call; None when the model gets the JSON fallback instead."""
    history: list[PastAction] = Field(default_factory=list)
    output_schema: JsonObject | None = None
    """The JSON schema ``done``'s ``data`` must match (the run's output type), or None."""
    repeating: bool = False
    """Kite has told the model it is repeating itself (a model may answer less deterministically)."""
    reply_schema: JsonObject | None = None
    """This step's reply schema (``agent.llm.reply_schema``) when replies are constrained: a real model sends
    it as ``response_format``; None: the reply is free text (JSON in Markdown) or tool calls."""
