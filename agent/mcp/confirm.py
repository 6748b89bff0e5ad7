"""Confirmations over MCP: a ``confirm`` decision becomes an elicitation the client shows its user.

``--approve LEVEL|ACTION`` approves without asking. Otherwise, when the client declared the elicitation
capability and the connection can carry a server request, the user is asked (the message names the action,
the element, the page and the reason); when it cannot, the action is refused with how to allow it.
Every answer is written to the server's record by the caller (``Record.decision``).
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterable
from typing import Any

import mcp_types as types

from agent.errors import UsageError
from safety.confirm import ConfirmAnswer, ConfirmRequest
from safety.policy import ConfirmLevel

current_request: contextvars.ContextVar[Any] = contextvars.ContextVar("kite_mcp_request", default=None)
"""The ServerRequestContext of the tool call being served (set by the server around each call)."""

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approve": {"type": "boolean", "title": "Allow", "description": "Let Kite do this action."}
    },
    "required": ["approve"],
}
APPROVE_HINT = "start kite mcp with --approve confirm (or --approve <action name>) to allow such actions"


def can_elicit(ctx: Any) -> bool:
    """The client declared form elicitation and this call's channel can carry a server request."""
    if ctx is None:
        return False
    caps = ctx.session.client_capabilities
    return bool(caps is not None and caps.elicitation is not None and ctx.session.can_send_request)


class ElicitConfirmer:
    def __init__(self, approve: Iterable[str] = ()) -> None:
        self.approve = frozenset(approve)
        for item in self.approve:
            if item == ConfirmLevel.BLOCK:
                raise UsageError("--approve block: blocked actions never run")

    def _approved_by_flag(self, request: ConfirmRequest) -> bool:
        name = str(request.action.get("action"))
        return request.decision.level.value in self.approve or name in self.approve

    async def confirm(self, request: ConfirmRequest) -> ConfirmAnswer:
        if self._approved_by_flag(request):
            return ConfirmAnswer(approved=True, reason="approved by --approve")
        ctx = current_request.get()
        if not can_elicit(ctx):
            return ConfirmAnswer(
                approved=False,
                reason=f"this needs the user's confirmation and the client cannot ask; {APPROVE_HINT}",
            )
        message = f"Kite asks to run: {request.describe()}. Allow it?"
        result = await ctx.session.elicit_form(message, SCHEMA, related_request_id=ctx.request_id)
        if not isinstance(result, types.ElicitResult):
            return ConfirmAnswer(approved=False, reason="no answer from the client")
        if result.action == "accept" and (result.content or {}).get("approve") is True:
            return ConfirmAnswer(approved=True, reason="approved by the user")
        how = "declined" if result.action != "cancel" else "cancelled"
        return ConfirmAnswer(approved=False, reason=f"the user {how}")

    async def notify(self, request: ConfirmRequest) -> None:
        return None
