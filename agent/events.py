"""Events the planner loop emits as it goes (the CLI's live progress, the TUI and the HTTP API listen)."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from pydantic import BaseModel, Field

EventKind = Literal["start", "observe", "model", "decision", "result", "error", "warning", "finish"]


class RunEvent(BaseModel):
    kind: EventKind
    step: int = 0
    data: dict[str, Any] = Field(default_factory=dict)


EventSink = Callable[[RunEvent], Awaitable[None] | None]


async def emit(sink: EventSink | None, kind: EventKind, step: int = 0, **data: Any) -> None:
    if sink is None:
        return
    out = sink(RunEvent(kind=kind, step=step, data=data))
    if inspect.isawaitable(out):
        await out
