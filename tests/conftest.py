"""Shared fixtures. Each room's fixtures live in tests/fixtures/<name>.py and are loaded here."""

import gc
import os

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

pytest_plugins = [
    "tests.fixtures.sites",
    "tests.fixtures.browser",
    "tests.fixtures.llm",
    "tests.fixtures.openai_server",
    "tests.fixtures.config",
]


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish() -> None:
    """Collect once, then freeze the heap, after the last teardown (session fixtures included).

    An xdist worker's session ends in a race: once it reports the session finished, execnet gives it 5 s to
    return and then sends it a SIGINT (``execnet.gateway_base._terminate_execution``); pytest spends that time
    on five full garbage collections (``_pytest.unraisableexception.cleanup``) over a heap of half a million
    objects and more (litellm, Playwright, hypothesis): 8 s at load 4 after a few tests. The KeyboardInterrupt
    then lands in whatever Python code runs inside those collections: hypothesis's gc callback, reported as
    a ``PytestUnraisableExceptionWarning``. The one collection here runs before the report (objects that
    die in a cycle are still finalised under pytest's unraisable hook), and freezing what survives makes the
    later collections look at new objects only: they take milliseconds.
    """
    gc.collect()
    gc.freeze()
