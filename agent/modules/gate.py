"""The domain policy and navigations of tool calls, as the safety wrapper judges them: the same
``safety.confirm.Gate`` as the agent's actions.

Every tool step is judged through the one wrapper (``safety/toolset.py``): a ``Tool`` that declares its ``judge``
(``chrome_navigate`` and ``playwright_browser``'s navigate as ``navigate``, ``chrome_evaluate`` and
``run_javascript``'s Node.js fallback as ``executeJS``, a user's tool at its declared level) is judged before its
handler runs, and clicks and typing act through a ``BrowserEnv`` (``act_gated``: the gate plus the second look
at the target). A refusal is ``ToolError("blocked")`` or ``ToolError("declined")`` (``refusal``). Allowed and
blocked domains are enforced on every context by the pool's rules, and checked before a navigation is judged
(``check_domain``), so the refusal names the domain policy and no request is made.
"""

from __future__ import annotations

from kite_browser.agent.browser.actions import Navigate
from kite_browser.agent.modules.base import ToolError
from kite_browser.safety.confirm import Gate
from kite_browser.safety.domains import host_of
from kite_browser.safety.toolset import CallPlan


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


def navigation_plan(gate: Gate, tool: str, url: str, page_url: str = "") -> CallPlan:
    """A tool's navigation to ``url`` (its scheme checked already), judged as Kite's ``navigate``: a URL
    outside the domain policy is refused before the gate is asked; ``page_url``: the page it leaves."""
    check_domain(gate, url, tool)
    return CallPlan(action=Navigate(url=url), url=page_url, about={"tool": tool, "args": {"url": url}})
