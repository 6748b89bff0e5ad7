from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from kite_browser.agent.config import KiteConfig


@pytest.fixture
def make_config(kite_config: Callable[..., KiteConfig]) -> Callable[..., KiteConfig]:
    """The loop tests' config: the plan-following fake model unless a test names another."""

    def make(**overrides: Any) -> KiteConfig:
        return kite_config(**{"llm.model": "kite/plan", **overrides})

    return make
