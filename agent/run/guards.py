"""Guards of a run's budgets: too many failed steps in a row, spent tokens or cost. (The loop guard, which
judges the steps themselves, is a step policy: ``agent/policies/loop_guard.py``.)"""

from __future__ import annotations

from kite_browser.agent.base.result import StopReason
from kite_browser.agent.config import AgentConfig
from kite_browser.agent.run.stop import Stop
from kite_browser.agent.run.totals import Totals


class Guards:
    """Stops a run that keeps failing or overspends its budgets."""

    def __init__(self, limits: AgentConfig) -> None:
        self.limits = limits
        self.failures = 0

    def step_failed(self, failed: bool) -> None:
        self.failures = self.failures + 1 if failed else 0
        if self.failures >= self.limits.max_failures:
            raise Stop(StopReason.MAX_FAILURES, f"{self.failures} consecutive steps failed")

    def check_budgets(self, t: Totals) -> None:
        a = self.limits
        if a.max_tokens is not None and t.tokens_in + t.tokens_out > a.max_tokens:
            raise Stop(
                StopReason.MAX_TOKENS, f"used {t.tokens_in + t.tokens_out} tokens (limit {a.max_tokens})"
            )
        if a.max_cost_usd is not None and t.cost_usd is not None and t.cost_usd > a.max_cost_usd:
            raise Stop(StopReason.MAX_COST, f"cost ${t.cost_usd:.4f} (limit ${a.max_cost_usd})")
