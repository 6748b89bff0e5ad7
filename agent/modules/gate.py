"""The safety policy applied to tool calls, as it is applied to the agent's actions.

A module maps a call to the browser action it amounts to (``chrome_evaluate`` is an ``executeJS``,
``chrome_navigate`` a ``navigate``, a click on element 12 a ``click``) and asks ``check_action``; the policy
decides the level from config (``config/safety.yaml`` + the user's rules). Calls with no action equivalent
(a user's own tool) go through ``check_level`` with their declared level. ``block`` raises
``ToolError("blocked")``; ``confirm`` asks the caller's confirmer (``CallContext.confirmer``, else the
runtime's default, which follows ``safety.approve``) and a refusal raises ``ToolError("declined")``;
``notify`` tells the confirmer and runs. Allowed/blocked domains are enforced on every browser context a
module opens (``protect``) and checked before a navigation (``check_url``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from kite_browser.agent.browser.actions import Action
from kite_browser.agent.browser.observation import Element, Observation
from kite_browser.agent.config import KiteConfig
from kite_browser.agent.modules.base import CallContext, SafetyLevel, ToolError
from kite_browser.safety.confirm import BatchConfirmer, ConfirmAnswer, Confirmer, ConfirmRequest, rejudge
from kite_browser.safety.domains import DomainPolicy, host_of
from kite_browser.safety.policy import SafetyPolicy
from kite_browser.safety.rules import ConfirmLevel, Decision

log = logging.getLogger(__name__)


class ToolGate:
    def __init__(
        self, policy: SafetyPolicy, default_confirmer: Confirmer, domains: DomainPolicy | None = None
    ) -> None:
        self.policy = policy
        self.default_confirmer = default_confirmer
        self.domains = domains or policy.domains
        self._pending: set[asyncio.Task[None]] = set()

    @classmethod
    def from_config(cls, config: KiteConfig, confirmer: Confirmer | None = None) -> ToolGate:
        policy = SafetyPolicy.from_config(config.safety)
        return cls(policy, confirmer or BatchConfirmer(config.safety.approve))

    # ------------------------------------------------------------ checks

    def check_url(self, url: str, tool: str) -> None:
        """Refuse a URL outside allowed_domains or inside blocked_domains (before any request is made)."""
        reason = self.domains.reason(url)
        if reason is not None:
            raise ToolError(
                "blocked",
                f"{tool}: {host_of(url) or url} is refused by the domain policy ({reason})",
                tool=tool,
                url=url,
                level="block",
            )

    async def check_action(
        self,
        ctx: CallContext,
        tool: str,
        action: Action,
        observation: Observation | None = None,
        args: dict[str, Any] | None = None,
    ) -> Decision:
        """Judge ``action`` with the policy and apply the decision (raises blocked / declined)."""
        decision = self.policy.evaluate(action, observation)
        request = ConfirmRequest(
            action={**action.to_json(), "tool": tool, **({"args": args} if args else {})},
            decision=decision,
            element=self.policy.target(action, observation),
            url=observation.summary.url if observation else "",
        )
        await self._apply(ctx, tool, request)
        return decision

    async def recheck(
        self,
        ctx: CallContext,
        tool: str,
        action: Action,
        observation: Observation | None,
        before: Decision,
        fresh: Element,
    ) -> str | None:
        """The target read again right before the input lands (``safety.confirm.rejudge``): a stricter level
        is applied like ``check_action``'s; returns why the action is refused, or None to go on."""
        request = rejudge(self.policy, action, observation, before, fresh)
        if request is None:
            return None
        try:
            await self._apply(ctx, tool, request)
        except ToolError as exc:
            return exc.message
        return None

    async def check_level(
        self, ctx: CallContext, tool: str, level: SafetyLevel, args: dict[str, Any], url: str = ""
    ) -> Decision:
        """Apply a declared level to a call that is not a browser action (a user's own tool)."""
        reason = f"{tool} is declared '{level}'"
        decision = Decision(level=ConfirmLevel(level), reasons=[reason] if level != "auto" else [], rule=tool)
        request = ConfirmRequest(
            action={"action": tool, "tool": tool, "args": args}, decision=decision, url=url
        )
        await self._apply(ctx, tool, request)
        return decision

    async def _apply(self, ctx: CallContext, tool: str, request: ConfirmRequest) -> None:
        decision = request.decision
        level = decision.level
        if level is ConfirmLevel.AUTO:
            return
        why = "; ".join(decision.reasons) or level.value
        if level is ConfirmLevel.BLOCK:
            raise ToolError(
                "blocked", f"{tool}: blocked by the safety policy: {why}", tool=tool, level="block"
            )
        confirmer = ctx.confirmer or self.default_confirmer
        if level is ConfirmLevel.NOTIFY:
            task = asyncio.ensure_future(confirmer.notify(request))
            self._pending.add(task)
            task.add_done_callback(self._pending.discard)
            return
        try:
            answer: ConfirmAnswer = await confirmer.confirm(request)
        except Exception as exc:  # a broken confirmer refuses, it never lets the call through
            log.warning("confirmer failed: %s", exc)
            answer = ConfirmAnswer(approved=False, reason=f"the confirmer failed: {exc}")
        if not answer.approved:
            raise ToolError(
                "declined",
                f"{tool}: needs confirmation ({why}) and was declined: {answer.reason or 'no reason given'}",
                tool=tool,
                level="confirm",
            )

    # ------------------------------------------------------------ enforcement

    async def protect(self, context: Any) -> None:
        """Enforce allowed/blocked domains at the network layer of a Playwright BrowserContext."""
        await self.domains.install(context)

    async def flush(self) -> None:
        if self._pending:
            with contextlib.suppress(Exception):
                await asyncio.gather(*self._pending, return_exceptions=True)
