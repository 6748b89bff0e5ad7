"""The HTTP confirmer: a ``confirm`` decision of a run becomes a question on the run's event stream
(``confirm``) that a person answers with ``POST /api/runs/{id}/confirmations/{cid}``; nobody answering within
``server.confirm_timeout_s`` denies it. ``safety.approve`` (``kite serve --approve``) approves without asking.
Every answer, and a time-out, is announced as a ``confirmed`` event."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.run.memory import describe_action
from kite_browser.agent.server.errors import ApiError
from kite_browser.agent.server.run import Run
from kite_browser.agent.server.run_models import ConfirmationAnswer, ConfirmationResult, ConfirmationView
from kite_browser.safety.confirm import ConfirmAnswer, ConfirmRequest
from kite_browser.safety.handover import HandBack, HandOverRequest
from kite_browser.safety.policy import ConfirmLevel
from kite_browser.safety.secrets import SecretStore


@dataclass
class Pending:
    view: ConfirmationView
    answer: asyncio.Future[ConfirmAnswer] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


class HttpConfirmer:
    def __init__(
        self, run: Run, *, timeout_s: float, approve: Iterable[str] = (), secrets: SecretStore | None = None
    ) -> None:
        self.run, self.timeout_s = run, timeout_s
        self.approve = frozenset(approve)
        if ConfirmLevel.BLOCK in self.approve:
            raise UsageError("--approve block: blocked actions never run")
        self.secrets = secrets or SecretStore()

    def _approved_by_flag(self, request: ConfirmRequest) -> bool:
        name = str(request.action.get("action"))
        return request.decision.level.value in self.approve or name in self.approve

    def _view(self, request: ConfirmRequest) -> ConfirmationView:
        created = datetime.now(UTC)
        view = ConfirmationView(
            id=secrets.token_hex(4),
            step=self.run.step,
            action=request.action,
            action_text=describe_action(request.call()),
            target=request.target_text(),
            level=request.decision.level.value,
            reasons=request.why(),
            element=request.element.model_dump(mode="json") if request.element is not None else None,
            url=request.url,
            description=request.describe(),
            timeout_s=self.timeout_s,
            created_at=created.isoformat(timespec="milliseconds"),
            expires_at=(created + timedelta(seconds=self.timeout_s)).isoformat(timespec="milliseconds"),
        )
        return ConfirmationView.model_validate(self.secrets.redact_obj(view.model_dump(mode="json")))

    async def confirm(self, request: ConfirmRequest) -> ConfirmAnswer:
        if self._approved_by_flag(request):
            return ConfirmAnswer(approved=True, reason="approved by --approve")
        pending = Pending(self._view(request))
        cid = pending.view.id
        self.run.pending[cid] = pending
        self.run.add("confirm", pending.view.model_dump(mode="json"))
        try:
            answer = await asyncio.wait_for(asyncio.shield(pending.answer), self.timeout_s)
        except TimeoutError:
            answer = ConfirmAnswer(approved=False, reason=f"nobody answered within {self.timeout_s:g} s")
        finally:
            self.run.pending.pop(cid, None)
            self.run.answered.add(cid)
        said = {"id": cid, "step": pending.view.step, "approved": answer.approved, "reason": answer.reason}
        self.run.add("confirmed", said)
        return answer

    async def hand_over(self, request: HandOverRequest) -> HandBack:
        """The browser handed to the panel's person (``server/handover.py``)."""
        from kite_browser.agent.server.handover import hand_over

        return await hand_over(self.run, request, self.timeout_s, self.secrets)

    async def notify(self, request: ConfirmRequest) -> None:
        self.run.add(
            "notify", self._view(request).model_dump(mode="json", exclude={"timeout_s", "expires_at"})
        )


def answer(run: Run, cid: str, approved: bool, similar: bool, reason: str) -> ConfirmAnswer | None:
    """Resolve a waiting confirmation; None when ``cid`` is not waiting (unknown, answered or timed out)."""
    pending = run.pending.get(cid)
    if pending is None or pending.answer.done():
        return None
    said = reason or ("approved over HTTP" if approved else "denied over HTTP")
    result = ConfirmAnswer(approved=approved, similar=similar and approved, reason=said)
    pending.answer.set_result(result)
    return result


def answer_or_raise(run: Run, cid: str, body: ConfirmationAnswer, unknown: str) -> ConfirmationResult:
    """Answer ``run``'s waiting confirmation ``cid`` as POST .../confirmations/{cid} does (a run's or the tool
    console's): the answer given, else a typed 409 ``confirmation_closed`` (answered or timed out) or 404
    ``unknown_confirmation`` (``unknown``: its message)."""
    given = answer(run, cid, body.decision == "approve", body.similar, body.reason)
    if given is not None:
        return ConfirmationResult(id=cid, approved=given.approved, reason=given.reason)
    if cid in run.answered:
        raise ApiError(409, "confirmation_closed", f"confirmation {cid} was answered or timed out", id=cid)
    raise ApiError(404, "unknown_confirmation", unknown, id=cid)
