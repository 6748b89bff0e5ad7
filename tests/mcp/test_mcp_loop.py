"""One session's CPU work does not freeze the others. Token counting (the ``read`` tool's pages, the diff or
snapshot choice after an action, the browser module's budget; the first count loads the tokenizer, seconds
on a loaded machine) and a big page's snapshot build (a model per element) run off the server's event loop.

The safety policy (its rules read and their patterns compiled) is built once at server start, in a thread, and
shared by every session.

The server runs in-process over streamable HTTP (``--isolated``: each SDK client is its own session with its
own browser context). The real function (the tokenizer, the snapshot build) is wrapped so that the heavy
call's run of it waits until another session's call has been answered: on the event loop that answer could
never come (the loop is held), so the order of events proves where it ran. The wait has a generous cap only
so that a regression fails instead of hanging.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from mcp import Client

from kite_browser.agent.browser import tokens
from kite_browser.agent.browser.snapshot import OFF_LOOP_ELEMENTS, Snapshotter
from kite_browser.agent.browser.tokens import count_tokens
from kite_browser.agent.mcp.app import kite_mcp
from kite_browser.agent.mcp.transport import run_http
from kite_browser.evals.sites import SitesServer
from kite_browser.safety.policy import SafetyPolicy
from tests.mcp.conftest import error_of, ref, text_of

HELD_S = 20.0


class Held:
    """The first run of a wrapped function that ``trigger`` picks notes its thread and waits for ``release``
    before running the real function."""

    def __init__(self) -> None:
        self.events: list[str] = []
        self.started = threading.Event()
        self.release = threading.Event()
        self.thread: int | None = None

    def run(self, trigger: bool, real: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if trigger and not self.started.is_set():
            self.thread = threading.get_ident()
            self.events.append("heavy call held")
            self.started.set()
            if not self.release.wait(HELD_S):  # on the loop: the other session could not be answered
                self.events.append("heavy call gave up waiting")
        return real(*args, **kwargs)


def _hold_tokenizer(monkeypatch: pytest.MonkeyPatch, held: Held, marker: str) -> None:
    """Hold the first count of a text containing ``marker`` (every text is counted afresh: no cache)."""
    real = tokens._count_like_litellm
    monkeypatch.setattr(tokens, "_count_like_litellm", lambda text: held.run(marker in text, real, text))
    count_tokens.cache_clear()


def _hold_big_build(monkeypatch: pytest.MonkeyPatch, held: Held) -> None:
    """Hold the first build of a snapshot with OFF_LOOP_ELEMENTS elements or more."""
    real = Snapshotter._build

    def build(self: Snapshotter, page: Any, infos: list[Any], *rest: Any) -> Any:
        big = sum(len(i.data["elements"]) for i in infos if i.data) >= OFF_LOOP_ELEMENTS
        return held.run(big, real, self, page, infos, *rest)

    monkeypatch.setattr(Snapshotter, "_build", build)


@contextlib.asynccontextmanager
async def _served(kite: Any) -> AsyncIterator[str]:
    bound: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(run_http(kite, host="127.0.0.1", port=0, token=None, ready=bound.set_result))
    try:
        yield await asyncio.wait_for(bound, 30)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def _read(c: Client, sites: SitesServer) -> Any:
    await c.call_tool("navigate", {"url": sites.url("/shop/")})
    return lambda: c.call_tool("read", {})


async def _click(c: Client, sites: SitesServer) -> Any:
    page = text_of(await c.call_tool("navigate", {"url": sites.url("/dynamic/")}))
    opener = ref(page, "button", "Open modal")
    return lambda: c.call_tool("click", {"ref": opener})  # same URL, the page changed: diff or snapshot?


async def _module_navigate(c: Client, sites: SitesServer) -> Any:
    # the browser module's tool (its own browser): its snapshot is fitted to a token budget
    return lambda: c.call_tool("browser", {"action": "navigate", "target_url": sites.url("/shop/")})


async def _big_snapshot(c: Client, sites: SitesServer) -> Any:
    await c.call_tool("navigate", {"url": sites.url("/test/big?n=10000")})  # 6,000 interactive elements
    return lambda: c.call_tool("snapshot", {"visible_only": False})


@pytest.mark.parametrize(
    ("prepare", "hold", "expected", "modules"),
    [
        (_read, "Mug", "[Navy Travel Mug]", []),
        (_click, "Page: ", "button Subscribe", []),
        (_module_navigate, "Mug", "Navy Travel Mug", ["browser"]),
        (_big_snapshot, None, "Page: Big page (10000 nodes)", []),
    ],
    ids=[
        "read_paginates",
        "click_chooses_diff_or_snapshot",
        "browser_module_fits_its_budget",
        "big_snapshot",
    ],
)
async def test_another_session_is_answered_while_a_call_works(
    kite_config: Any,
    sites: SitesServer,
    monkeypatch: pytest.MonkeyPatch,
    prepare: Any,
    hold: str | None,
    expected: str,
    modules: list[str],
) -> None:
    held = Held()
    if hold is None:
        _hold_big_build(monkeypatch, held)
    else:
        _hold_tokenizer(monkeypatch, held, hold)
    loop_thread = threading.get_ident()
    async with kite_mcp(kite_config(**{"mcp.modules": modules}), isolated=True) as kite:
        async with _served(kite) as url:
            async with Client(url) as light, Client(url) as heavy:
                assert "Tabs (* = active)" in text_of(await light.call_tool("tabs", {}))  # its context exists
                call = await prepare(heavy, sites)
                pending = asyncio.create_task(call())
                assert await asyncio.to_thread(held.started.wait, HELD_S), "the heavy call was never held"
                listing = await light.call_tool("tabs", {})  # another session, while the heavy call is held
                held.events.append("light call answered")
                held.release.set()
                answer = await pending
                held.events.append("heavy call answered")
    assert not listing.is_error and "0* '' about:blank" in text_of(listing)
    assert not answer.is_error and expected in text_of(answer)
    assert held.events == ["heavy call held", "light call answered", "heavy call answered"]
    assert held.thread is not None and held.thread != loop_thread


async def test_the_safety_policy_is_built_off_the_loop_once_for_all_sessions(
    kite_config: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    built_on: list[int] = []
    real = SafetyPolicy.__init__

    def init(self: SafetyPolicy, *args: Any, **kwargs: Any) -> None:
        built_on.append(threading.get_ident())
        real(self, *args, **kwargs)

    monkeypatch.setattr(SafetyPolicy, "__init__", init)
    loop_thread = threading.get_ident()
    config = kite_config(**{"mcp.modules": ["browser"], "safety.blocked_domains": ["blocked.test"]})
    async with kite_mcp(config, isolated=True) as kite:
        async with _served(kite) as url:
            async with Client(url) as one, Client(url) as two:
                for client in (one, two):  # each session has its context and gate, and the policy holds
                    refused = error_of(await client.call_tool("navigate", {"url": "http://blocked.test/"}))
                    assert refused["error"] == "blocked", refused
                    module = error_of(
                        await client.call_tool(
                            "browser", {"action": "navigate", "target_url": "http://blocked.test/"}
                        )
                    )
                    assert "blocked" in module["message"], module
    # one for the browser tools (it knows the secrets' names), one for the modules' gate; none per session
    assert len(built_on) == 2, built_on
    assert loop_thread not in built_on, "the policy was compiled on the server's event loop"
