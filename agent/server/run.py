"""One agent run as the server keeps it: its numbered events (for SSE, resumable), the steps built from them,
its pending confirmations and how it ended."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kite_browser.agent.base.events import (
    ActionDecided,
    ActionFinished,
    ModelReplied,
    PageObserved,
    ReplyRejected,
    RunEvent,
    RunFinished,
    RunStarted,
)
from kite_browser.agent.base.result import ERROR_STOPS, RunResult, StopReason
from kite_browser.agent.server.errors import ErrorBody
from kite_browser.agent.server.run_models import (
    ActionView,
    RunRequest,
    RunStatus,
    RunSummary,
    RunView,
    StepView,
    outcome_of,
)

if TYPE_CHECKING:
    from kite_browser.agent.browser.session import ContextSession
    from kite_browser.agent.server.confirm import Pending
    from kite_browser.agent.server.handover import Handing


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


@dataclass(frozen=True)
class Event:
    id: int
    kind: str
    data: dict[str, object]

    def sse(self) -> str:
        import json

        return f"id: {self.id}\nevent: {self.kind}\ndata: {json.dumps(self.data, ensure_ascii=False)}\n\n"


class Run:
    def __init__(self, run_id: str, request: RunRequest, *, model: str, max_steps: int, domains: list[str]):
        self.id, self.request = run_id, request
        self.model, self.max_steps, self.domains = model, max_steps, domains
        self.created_at: str = now()
        self.finished_at: str | None = None
        self.status: RunStatus = "running"
        self.events: list[Event] = []
        self.steps: dict[int, StepView] = {}
        self.pending: dict[str, Pending] = {}
        self.answered: set[str] = set()
        self.result: RunResult | None = None
        self.error: ErrorBody | None = None
        self.run_dir: Path | None = None
        self.step = 0
        """The step in progress (the highest step an event has named so far)."""
        self.stop_requested = False
        self.task: asyncio.Task[None] | None = None
        self.context: ContextSession | None = None
        self.handing: Handing | None = None
        """The open hand-over of the browser to the panel's person (``server/handover.py``), if any."""
        """The browser context the run acts in (while it runs): the panel's live view is taken of its page."""
        self._changed = asyncio.Event()

    # ------------------------------------------------------------------ events
    def add(self, kind: str, data: Mapping[str, object]) -> Event:
        """Append an event; its data gets ``t``, the time it was emitted (seconds since the epoch)."""
        event = Event(len(self.events) + 1, kind, {**data, "t": round(time.time(), 6)})
        self.events.append(event)
        self._changed.set()
        self._changed = asyncio.Event()
        return event

    async def on_event(self, event: RunEvent) -> None:
        """The agent's event sink (already redacted by the agent)."""
        data = event.model_dump(mode="json")
        if isinstance(event, RunStarted):
            self.run_dir = Path(event.run_dir)
        elif isinstance(event, PageObserved) and event.screenshot:
            data["screenshot_url"] = self.screenshot_url(event.step)
        elif isinstance(event, RunFinished):
            self._ended(event.result)
            data.update(self._outcome())
        self.step = max(self.step, event.step)
        self._track(event, data)
        self.add(event.kind, data)
        for _ in range(3):  # let the streams send it before the agent goes on (its next work may not yield)
            await asyncio.sleep(0)

    def screenshot_url(self, step: int) -> str:
        return f"/api/runs/{self.id}/screenshots/{step}"

    def _track(self, event: RunEvent, data: Mapping[str, object]) -> None:
        if event.step <= 0 or isinstance(event, RunFinished | RunStarted):
            return
        step = self.steps.setdefault(event.step, StepView(step=event.step))
        if isinstance(event, PageObserved):
            shot = data.get("screenshot_url")
            step.url, step.title, step.screenshot_url = (
                event.url,
                event.title,
                shot if isinstance(shot, str) else None,
            )
        elif isinstance(event, ModelReplied):
            step.tokens += event.usage.tokens
            step.thought = step.thought or event.content
        elif isinstance(event, ActionDecided):
            step.actions.append(ActionView(action=event.action, level=event.level, allowed=event.allowed))
        elif isinstance(event, ActionFinished):
            waiting = [a for a in step.actions if a.action == event.action and a.ok is None]
            if waiting:
                waiting[0].ok, waiting[0].message = event.ok, event.message
            else:
                step.actions.append(
                    ActionView(action=event.action, level=event.level, ok=event.ok, message=event.message)
                )
        elif isinstance(event, ReplyRejected):
            step.errors.append(f"{event.error}: {event.message}")

    def _ended(self, result: RunResult) -> None:
        self.result = result
        if result.stop_reason == StopReason.INTERRUPTED and self.stop_requested:
            self.status = "stopped"
        elif result.stop_reason in ERROR_STOPS:
            self.status = "failed"
            self.error = ErrorBody(error=result.stop_reason, message=result.message or result.stop_reason)
        else:
            self.status = "finished"

    def _outcome(self) -> dict[str, object]:
        """What the ``finish`` event adds to the loop's: the run's ``status`` and ``error`` (as GET shows them)."""
        return {
            "status": self.status,
            "outcome": outcome_of(self.status, self.result),
            "caveat": self.result.caveat if self.result else "",
            "error": self.error.model_dump(mode="json") if self.error else None,
        }

    def close(self, failure: ErrorBody | None = None) -> None:
        """The run's task is over: make sure it has a result and a ``finish`` event, and wake every follower."""
        if self.result is None:
            failure = failure or ErrorBody(error="error", message="the run ended without a result")
            result = RunResult(
                success=False,
                stop_reason=StopReason.INTERRUPTED if self.stop_requested else StopReason.ERROR,
                message=failure.message,
                steps=len(self.steps),
                run_dir=str(self.run_dir) if self.run_dir else None,
            )
            self._ended(result)
            if self.status == "failed":
                self.error = failure
            finish = RunFinished(step=len(self.steps), result=result).model_dump(mode="json")
            self.add("finish", {**finish, **self._outcome()})
        self.finished_at = self.finished_at or now()
        self._changed.set()

    @property
    def done(self) -> bool:
        return self.finished_at is not None

    async def follow(self, after: int, keepalive_s: float) -> AsyncIterator[Event | None]:
        """Every event after id ``after``, then each new one as it comes, until the run is done; ``None`` is
        yielded after ``keepalive_s`` without an event (the stream sends a comment to keep proxies open)."""
        seen = max(0, after)
        while True:
            while seen < len(self.events):
                seen += 1
                yield self.events[seen - 1]
            if self.done:
                return
            changed = self._changed
            try:
                await asyncio.wait_for(changed.wait(), keepalive_s)
            except TimeoutError:
                yield None

    # ------------------------------------------------------------------ views
    def summary(self) -> RunSummary:
        return RunSummary(**self._summary())

    def _summary(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "status": self.status,
            "task": self.request.task,
            "model": self.model,
            "created_at": self.created_at,
            "finished_at": self.finished_at,
            "step_count": max(self.steps, default=0) if self.result is None else self.result.steps,
            "success": self.result.success if self.result else None,
            "stop_reason": self.result.stop_reason if self.result else None,
            "outcome": outcome_of(self.status, self.result) if self.done or self.result else "running",
            "answer": self.result.answer if self.result else "",
            "caveat": self.result.caveat if self.result else "",
        }

    def view(self) -> RunView:
        return RunView(
            **self._summary(),
            start_url=self.request.start_url,
            profile=self.request.profile,
            max_steps=self.max_steps,
            allowed_domains=self.domains,
            secrets=list(self.request.secrets),
            events=len(self.events),
            steps=[self.steps[k] for k in sorted(self.steps)],
            result=self.result,
            error=self.error,
            confirmations=[p.view for p in self.pending.values()],
        )
