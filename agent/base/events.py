"""Events the planner loop emits as it goes (the CLI's live progress, the TUI and the HTTP API listen).

One pydantic model per kind, in a union discriminated by ``kind`` (``RunEvent``); a listener matches on the
type (``isinstance(event, ActionFinished)``) and reads typed fields. ``event.model_dump()`` is the wire form.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Annotated, Literal

from pydantic import BaseModel, Field, TypeAdapter

from kite_browser.agent.base.levels import ConfirmLevel
from kite_browser.agent.base.result import RunResult


class _Event(BaseModel):
    step: int = 0


class RunStarted(_Event):
    kind: Literal["start"] = "start"
    task: str
    model: str
    run_dir: str


class PageObserved(_Event):
    kind: Literal["observe"] = "observe"
    url: str = ""
    title: str = ""
    screenshot: str | None = None
    text: str = ""
    """The first 200 characters of the page's visible text."""


class TokenUsage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    latency_ms: float = 0.0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class ModelReplied(_Event):
    kind: Literal["model"] = "model"
    usage: TokenUsage = Field(default_factory=TokenUsage)
    content: str = ""
    """The first 500 characters of the reply's text."""


class ActionDecided(_Event):
    """The safety gate's decision about an action, before it runs."""

    kind: Literal["decision"] = "decision"
    action: str
    level: ConfirmLevel
    reasons: list[str] = Field(default_factory=list)
    allowed: bool


class ActionFinished(_Event):
    kind: Literal["result"] = "result"
    action: str
    """The action as the model was shown it: ``click [6] button "Add to cart"``."""
    ok: bool
    message: str = ""
    level: ConfirmLevel = ConfirmLevel.AUTO

    @property
    def went_well(self) -> bool:
        """The action ran and is not the model saying it failed (``done`` with success false ran, but is no
        success to mark with a tick)."""
        return self.ok and not self.action.startswith("done success=False")


class ReplyRejected(_Event):
    """The model's reply could not be used (it is told why and asked again)."""

    kind: Literal["error"] = "error"
    error: str
    message: str


class ModelWaiting(_Event):
    """How a slow model call is going: the requests ahead of it at a shared local server, the time it expects."""

    kind: Literal["wait"] = "wait"
    message: str


class RunFinished(_Event):
    kind: Literal["finish"] = "finish"
    result: RunResult


RunEvent = Annotated[
    RunStarted
    | PageObserved
    | ModelReplied
    | ActionDecided
    | ActionFinished
    | ReplyRejected
    | ModelWaiting
    | RunFinished,
    Field(discriminator="kind"),
]
EVENT_ADAPTER: TypeAdapter[RunEvent] = TypeAdapter(RunEvent)

EventSink = Callable[[RunEvent], Awaitable[None] | None]


async def emit(sink: EventSink | None, event: RunEvent) -> None:
    if sink is None:
        return
    out = sink(event)
    if inspect.isawaitable(out):
        await out
