"""Confirmations over MCP: a ``confirm`` decision becomes an elicitation the client shows its user.

``--approve LEVEL|ACTION`` approves without asking. Otherwise, when the client declared the elicitation
capability, the user is asked (the message names the action, the element, the page and the reason); when it
did not, the action is refused with how to allow it. Every answer is written to the server's record by the
caller (``Record.decision``).

How the question travels depends on the protocol era of the call:

* handshake era (2025-11-25 and older): a server request ``elicitation/create`` in the middle of the call;
* 2026-07-28 (no server requests): the call ends with an ``InputRequiredResult`` carrying the question and
  a ``requestState`` (sealed by the SDK's ``RequestStateBoundary``, bound to the tool and its arguments);
  the client asks its user and sends the same call again with the answer. Nothing ran in the first round:
  the gate refused before the action. The state names a one-time question id that Kite remembers with a
  digest of the question, so an answer counts once, and only for the question it was given to (if the page
  changed between the rounds, the user is asked again). A question can only be asked before the action
  starts: a page's dialog in the middle of an action is dismissed (the client cannot be asked then).
"""

from __future__ import annotations

import contextvars
import hashlib
import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TypeGuard

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from kite_browser.agent.base.jsontypes import JsonObject
from kite_browser.safety.confirm import ConfirmAnswer, ConfirmRequest, check_approvals

McpContext = ServerRequestContext[object]
"""The SDK's context of the request being served (Kite's server has no lifespan state)."""

current_request: contextvars.ContextVar[McpContext | None] = contextvars.ContextVar(
    "kite_mcp_request", default=None
)
"""The ServerRequestContext of the tool call being served (set by the server around each call)."""

SCHEMA: JsonObject = {
    "type": "object",
    "properties": {
        "approve": {"type": "boolean", "title": "Allow", "description": "Let Kite do this action."}
    },
    "required": ["approve"],
}
APPROVE_HINT = "start kite mcp with --approve confirm (or --approve <tool name>) to allow such actions"
CANNOT_ASK = "refused: this client cannot ask for confirmation"
"""How a refusal starts when nobody was asked (the client declared no elicitation)."""
CODE_CHARS = 600
"""The most of an ``evaluate``'s code a question shows (then how much more there is)."""
INPUT_KEY = "confirm"
"""The key of Kite's one question in ``inputRequests`` / ``inputResponses``."""
QUESTION_TTL_S = 600.0


@dataclass
class InputRound:
    """One round of a tool call on a 2026-07-28 connection: the answer it brings, the question it asks."""

    answer: types.ElicitResult | None = None
    question_id: str | None = None
    """From the (unsealed) ``requestState`` of a retried call."""
    open: bool = True
    """A question may still be asked (the action has not started, none was asked or answered yet)."""
    asked: types.InputRequiredResult | None = None

    @classmethod
    def of(cls, ctx: McpContext | None) -> InputRound | None:
        """The round of this call when it is on a 2026-07-28 connection, else None."""
        if ctx is None or ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            return None
        params = ctx.params or {}
        raw = (params.get("inputResponses") or {}).get(INPUT_KEY)
        try:
            answer = types.ElicitResult.model_validate(raw) if raw is not None else None
        except ValidationError:
            answer = None
        state = params.get("requestState")
        return cls(answer=answer, question_id=state if isinstance(state, str) else None)


current_round: contextvars.ContextVar[InputRound | None] = contextvars.ContextVar(
    "kite_mcp_round", default=None
)
current_tool: contextvars.ContextVar[str | None] = contextvars.ContextVar("kite_mcp_tool", default=None)
"""The name of the MCP tool being called (the client's word for the action; set by the server)."""


def _code(code: str) -> str:
    if len(code) <= CODE_CHARS:
        return code
    return f"{code[:CODE_CHARS].rstrip()}\n… ({len(code) - CODE_CHARS} more characters)"


def _why(request: ConfirmRequest, name: str) -> str:
    """The policy's reasons, naming the action as the client called it (``evaluate``, not ``executeJS``)."""
    return "; ".join(request.why(name)) or request.decision.level.value


def question(request: ConfirmRequest, tool: str | None) -> str:
    """What the client's user is asked: the tool (by the name the client called it), its target, the page,
    why it needs a yes, and the code an ``evaluate`` would run."""
    name = tool or str(request.action.get("action"))
    el = request.element
    target = f' on "{el.name}"' if el is not None and el.name else ""
    why = _why(request, name)
    text = f"Kite asks to run {name}{target} at {request.url or '(no page)'} ({why})."
    code = request.action.get("code")
    if isinstance(code, str) and code:
        text += f"\nCode:\n{_code(code)}"
    return text + "\nAllow it?"


def cannot_ask(request: ConfirmRequest, tool: str | None) -> str:
    """The refusal when the client cannot ask: nobody declined, so it says how to allow it instead."""
    name = tool or str(request.action.get("action"))
    why = _why(request, name)
    return (
        f"{CANNOT_ASK}; allow with --approve {name} (this tool) or --approve confirm (every action that "
        f"asks) when starting kite mcp (it asks because {why})"
    )


def input_pending() -> bool:
    """This call ends with a question for the client (nothing ran; no decision to record yet)."""
    rnd = current_round.get()
    return rnd is not None and rnd.asked is not None


def close_round() -> None:
    """The action starts now: from here on nothing can be asked by a retried call."""
    rnd = current_round.get()
    if rnd is not None:
        rnd.open = False


def can_elicit(ctx: McpContext | None) -> TypeGuard[McpContext]:
    """The client declared elicitation and this call can carry a question (a server request in the
    handshake era; an InputRequiredResult in the 2026-07-28 era)."""
    if ctx is None:
        return False
    caps = ctx.session.client_capabilities
    if caps is None or caps.elicitation is None:
        return False
    return current_round.get() is not None or bool(ctx.session.can_send_request)


def _digest(message: str) -> str:
    return hashlib.sha256(message.encode()).hexdigest()


@dataclass
class _Questions:
    """Questions asked of 2026-07-28 clients: id -> (digest of the question, expiry). Each id answers once."""

    asked: dict[str, tuple[str, float]] = field(default_factory=dict)

    def ask(self, message: str) -> str:
        now = time.monotonic()
        for key in [k for k, (_, exp) in self.asked.items() if exp < now]:
            del self.asked[key]
        qid = secrets.token_urlsafe(16)
        self.asked[qid] = (_digest(message), now + QUESTION_TTL_S)
        return qid

    def take(self, qid: str | None, message: str) -> bool:
        """The answer brought with ``qid`` is the answer to ``message`` (and ``qid`` is now used up)."""
        entry = self.asked.pop(qid, None) if qid else None
        return entry is not None and entry[0] == _digest(message) and entry[1] >= time.monotonic()


def _interpret(result: types.ElicitResult) -> ConfirmAnswer:
    if result.action == "accept" and (result.content or {}).get("approve") is True:
        return ConfirmAnswer(approved=True, reason="approved by the user")
    how = {"accept": "answered no", "cancel": "cancelled"}.get(result.action, "declined")
    return ConfirmAnswer(approved=False, reason=f"{how} in the client")


class ElicitConfirmer:
    def __init__(self, approve: Iterable[str] = ()) -> None:
        from kite_browser.agent.mcp.tools import TOOLS

        given = list(approve)
        tools = frozenset(a for a in given if a in TOOLS)  # --approve evaluate: the client's name for it
        self.approve = check_approvals(a for a in given if a not in tools) | tools
        self.questions = _Questions()

    def _approved_by_flag(self, request: ConfirmRequest) -> bool:
        names = {str(request.action.get("action")), current_tool.get()}
        return request.decision.level.value in self.approve or bool(names & self.approve)

    async def confirm(self, request: ConfirmRequest) -> ConfirmAnswer:
        if self._approved_by_flag(request):
            return ConfirmAnswer(approved=True, reason="approved by --approve")
        ctx = current_request.get()
        if not can_elicit(ctx):
            return ConfirmAnswer(approved=False, reason=cannot_ask(request, current_tool.get()))
        message = question(request, current_tool.get())
        rnd = current_round.get()
        if rnd is not None:
            return self._in_round(rnd, message, dialog=request.action.get("action") == "dialog")
        result = await ctx.session.elicit_form(message, SCHEMA, related_request_id=ctx.request_id)
        if not isinstance(result, types.ElicitResult):
            return ConfirmAnswer(approved=False, reason="no answer from the client")
        return _interpret(result)

    def _in_round(self, rnd: InputRound, message: str, *, dialog: bool) -> ConfirmAnswer:
        if not rnd.open or dialog:  # a page's dialog shows up while something already runs
            return ConfirmAnswer(
                approved=False,
                reason="the client can only be asked before an action starts (2026-07-28 protocol); "
                + APPROVE_HINT,
            )
        rnd.open = False
        if rnd.answer is not None and self.questions.take(rnd.question_id, message):
            return _interpret(rnd.answer)
        question = types.ElicitRequest(
            method="elicitation/create",
            params=types.ElicitRequestFormParams(message=message, requested_schema=SCHEMA),
        )
        rnd.asked = types.InputRequiredResult(
            input_requests={INPUT_KEY: question}, request_state=self.questions.ask(message)
        )
        return ConfirmAnswer(approved=False, reason="waiting for the user's answer")

    async def notify(self, request: ConfirmRequest) -> None:
        return None
