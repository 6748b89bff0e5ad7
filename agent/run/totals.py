"""What a run spends: tokens, cost and model time summed over its steps, and milliseconds for the record."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from kite_browser.agent.llm.client import Usage


def ms_since(since: float) -> float:
    """Milliseconds since ``time.perf_counter()`` was ``since``, rounded for the record."""
    return round((time.perf_counter() - since) * 1000, 2)


@dataclass
class Totals:
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float | None = None
    model_latency_s: float = 0.0
    replies_rejected: int = 0
    """Replies no action could be read from (parse errors)."""
    actions_refused: int = 0
    """Actions refused because their target was not on the page (stale or unknown index)."""
    calls: int = 0
    """Replies received from the model."""
    policies_acted: dict[str, int] = field(default_factory=dict)
    """Each enabled step policy with the steps in which it acted (``Policies.acted``)."""

    def acted(self, names: list[str]) -> None:
        """One step's policies that acted (each must be enabled: named in ``policies_acted``)."""
        for name in names:
            self.policies_acted[name] += 1

    def add(self, usage: Usage) -> None:
        self.calls += 1
        self.tokens_in += usage.prompt_tokens
        self.tokens_out += usage.completion_tokens
        self.model_latency_s += usage.latency_ms / 1000
        if usage.cost_usd is not None:
            self.cost_usd = (self.cost_usd or 0.0) + usage.cost_usd
