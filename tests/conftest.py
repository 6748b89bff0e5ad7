"""Shared fixtures. Each room's fixtures live in tests/fixtures/<name>.py and are loaded here."""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

pytest_plugins = [
    "tests.fixtures.sites",
    "tests.fixtures.browser",
    "tests.fixtures.llm",
    "tests.fixtures.openai_server",
    "tests.fixtures.config",
]
