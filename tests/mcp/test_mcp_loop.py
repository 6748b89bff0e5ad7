"""One session's CPU work does not freeze the others: token counting (the ``read`` tool's pages, the diff or
snapshot choice after an action; the first count loads the tokenizer, seconds on a loaded machine) runs off
the server's event loop.

The server runs in-process over streamable HTTP (``--isolated``: each SDK client is its own session with its
own browser context). The real tokenizer is wrapped so that the heavy call's count waits until another
session's call has been answered: on the event loop that answer could never come (the loop is held), so the
order of events proves where the count ran. The wait has a generous cap only so that a regression fails
instead of hanging.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

import litellm
import pytest
from mcp import Client

from agent.browser.tokens import count_tokens
from agent.mcp.app import kite_mcp
from agent.mcp.transport import run_http
from evals.sites import SitesServer
from tests.mcp.conftest import ref, text_of

HELD_S = 20.0


class HeldTokenizer:
    """``litellm.token_counter`` that, for the first text containing ``marker``, notes where it runs and waits
    for ``release`` before counting."""

    def __init__(self, real: Callable[..., int], marker: str) -> None:
        self.real, self.marker = real, marker
        self.events: list[str] = []
        self.counting = threading.Event()
        self.release = threading.Event()
        self.thread: int | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> int:
        if self.marker in kwargs.get("text", "") and not self.counting.is_set():
            self.thread = threading.get_ident()
            self.events.append("heavy call counting")
            self.counting.set()
            self.release.wait(HELD_S)
        return int(self.real(*args, **kwargs))


@contextlib.asynccontextmanager
async def _served(kite: Any) -> AsyncIterator[str]:
    bound: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(run_http(kite, host="127.0.0.1", port=0, token=None, ready=bound.set_result))
    try:
        yield await asyncio.wait_for(bound, 30)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def _heavy_read(c: Client, sites: SitesServer) -> Any:
    await c.call_tool("navigate", {"url": sites.url("/shop/")})
    return lambda: c.call_tool("read", {})


async def _heavy_click(c: Client, sites: SitesServer) -> Any:
    page = text_of(await c.call_tool("navigate", {"url": sites.url("/dynamic/")}))
    opener = ref(page, "button", "Open modal")
    return lambda: c.call_tool("click", {"ref": opener})  # same URL, the page changed: diff or snapshot?


async def _heavy_module_snapshot(c: Client, sites: SitesServer) -> Any:
    # the browser module's tool (its own browser): its snapshot is fitted to a token budget
    return lambda: c.call_tool("browser", {"action": "navigate", "target_url": sites.url("/shop/")})


@pytest.mark.parametrize(
    ("prepare", "marker", "expected", "modules"),
    [
        (_heavy_read, "Mug", "[Navy Travel Mug]", []),
        (_heavy_click, "Page: ", "button Subscribe", []),
        (_heavy_module_snapshot, "Mug", "Navy Travel Mug", ["browser"]),
    ],
    ids=["read_paginates", "click_chooses_diff_or_snapshot", "browser_module_fits_its_budget"],
)
async def test_another_session_is_answered_while_a_call_counts_tokens(
    kite_config: Any,
    sites: SitesServer,
    monkeypatch: pytest.MonkeyPatch,
    prepare: Any,
    marker: str,
    expected: str,
    modules: list[str],
) -> None:
    held = HeldTokenizer(litellm.token_counter, marker)
    monkeypatch.setattr(litellm, "token_counter", held)
    count_tokens.cache_clear()  # every text is counted afresh (no earlier test's cached count)
    loop_thread = threading.get_ident()
    async with kite_mcp(kite_config(modules=modules), isolated=True) as kite:
        async with _served(kite) as url:
            async with Client(url) as light, Client(url) as heavy:
                assert "Tabs (* = active)" in text_of(await light.call_tool("tabs", {}))  # its context exists
                call = await prepare(heavy, sites)
                pending = asyncio.create_task(call())
                assert await asyncio.to_thread(held.counting.wait, HELD_S), "the heavy call never counted"
                listing = await light.call_tool("tabs", {})  # another session, while the count is held
                held.events.append("light call answered")
                held.release.set()
                answer = await pending
                held.events.append("heavy call answered")
    assert not listing.is_error and "0* '' about:blank" in text_of(listing)
    assert not answer.is_error and expected in text_of(answer)
    assert held.events == ["heavy call counting", "light call answered", "heavy call answered"]
    assert held.thread is not None and held.thread != loop_thread
