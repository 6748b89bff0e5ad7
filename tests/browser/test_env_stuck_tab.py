"""A tab whose script stops yielding between the observation and the action: the action's lookups (which
element an index is, its fingerprint) give up after ``browser.hang_timeout_ms`` and the action's guarded run
closes the stuck tab and says so (``page_unresponsive``), instead of a step that never ends. The same rule for
the chrome tools: tests/modules/test_chrome_stuck_tab.py."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from kite_browser.agent.browser.actions import Click
from kite_browser.agent.browser.env import BrowserEnv, EnvSafety
from kite_browser.agent.browser.session import ContextSession
from kite_browser.agent.config import KiteConfig
from tests.fixtures.browser import PagesServer

SPIN = "setTimeout(() => { while (true) {} }, 0)"
"""Starts spinning right after the evaluate that schedules it has answered."""


async def test_an_action_on_a_tab_stuck_after_the_observation_is_abandoned(
    kite_config: Callable[..., KiteConfig],
    ctx_session: ContextSession,
    pages_server: PagesServer,
    tmp_path: Path,
) -> None:
    config = kite_config(**{"browser.hang_timeout_ms": 1000})
    env = BrowserEnv(config, ctx_session, EnvSafety.from_config(config))
    await env.start(tmp_path)
    try:
        url = pages_server.add("/stuck/after-observe.html", "<title>Stuck</title><button>Go</button>")
        await ctx_session.page.goto(url)
        obs = await env.observe()
        go = next(e.index for e in obs.elements if e.name == "Go")
        stuck = ctx_session.page
        await stuck.evaluate(SPIN)
        # before: the fingerprint's lookup waited on the stuck renderer for ever (outside the executor's guard)
        acted = await asyncio.wait_for(env.act(Click(index=go), obs), 90)
        assert acted.result.error is not None, acted.result
        assert acted.result.error.error == "page_unresponsive", acted.result.error
        assert stuck.is_closed()
        assert ctx_session.page is not stuck  # a blank tab took its place
    finally:
        await env.stop()
