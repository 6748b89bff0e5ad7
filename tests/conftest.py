"""Shared fixtures. Each room's fixtures live in tests/fixtures/<name>.py and are loaded here."""

import gc
import os
import signal

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    # A test run started in the background (`make test &` in a script, nohup) inherits SIGINT ignored, and so
    # would every process the tests start: the Ctrl-C tests (kite sites serve, a session's cleanup, kite run's
    # exit 130) would then see their Ctrl-C ignored and time out. The tests send Ctrl-C as a terminal does
    # to its foreground job, which never has it ignored.
    signal.signal(signal.SIGINT, signal.default_int_handler)

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
