"""A policy with the bundled rules, the scenario secrets and evil.test blocked."""

from __future__ import annotations

import pytest

from kite_browser.agent.config import SafetyConfig
from kite_browser.safety.policy import SafetyPolicy
from tests.safety.scenarios import BLOCKED, SECRET_NAMES


@pytest.fixture(scope="session")
def policy() -> SafetyPolicy:
    return SafetyPolicy.from_config(SafetyConfig(blocked_domains=list(BLOCKED)), secret_names=SECRET_NAMES)
