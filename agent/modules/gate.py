"""The safety gate applied to tool calls, with its refusals as the tools' typed errors: the same
``safety.confirm.Gate`` as the agent's actions.

Most tools are judged through the one wrapper (``safety/toolset.py``): a ``Tool`` that declares its ``judge``
(``chrome_evaluate`` as ``executeJS``, ``chrome_navigate`` as ``navigate``, a user's tool at its declared level)
is judged before its handler runs, and clicks and typing act through a ``BrowserEnv`` (``act_gated``: the
gate plus the second look at the target). ``check_action`` is for a step judged in the middle of a handler
(``playwright_browser``'s actions, ``run_javascript``'s Node.js fallback). ``block`` raises
``ToolError("blocked")``; ``confirm`` asks the caller's confirmer (``CallContext.confirmer``, else the gate's,
which follows ``safety.approve``) and a refusal raises ``ToolError("declined")``; ``notify`` tells the
confirmer and runs. Allowed/blocked domains are enforced on every context by the pool's rules and checked
before a navigation (``check_domain``).
"""

from __future__ import annotations

from typing import Any

from kite_browser.agent.browser.actions import Action
from kite_browser.agent.browser.observation import Observation
from kite_browser.agent.modules.base import CallContext, ToolError, refusal
from kite_browser.safety.confirm import Gate
from kite_browser.safety.domains import host_of
from kite_browser.safety.rules import Decision


def check_domain(gate: Gate, url: str, tool: str) -> None:
    """Refuse a URL outside allowed_domains or inside blocked_domains (before any request is made)."""
    reason = gate.domains.reason(url)
    if reason is not None:
        raise ToolError(
            "blocked",
            f"{tool}: {host_of(url) or url} is refused by the domain policy ({reason})",
            tool=tool,
            url=url,
            level="block",
        )


async def check_action(
    gate: Gate,
    ctx: CallContext,
    tool: str,
    action: Action,
    observation: Observation | None = None,
    args: dict[str, Any] | None = None,
    url: str = "",
) -> Decision:
    """Judge ``action`` with the gate, asking the caller's confirmer (raises blocked / declined); ``url``: the
    page the call acts on when there is no observation (shown to the person asked)."""
    about = {"tool": tool, **({"args": args} if args else {})}
    result = await gate.check(action, observation, ctx.confirmer, about=about, url=url)
    if not result.allowed:
        raise refusal(tool, result)
    return result.decision
