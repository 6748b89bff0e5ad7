"""What a call to a model server on this machine needs beyond a remote call: its turn in the shared queue
(``agent.llm.queue``), a time limit that follows the prompt's size and the server's speed
(``agent.llm.pace``), progress told while it runs (``agent.llm.progress``), and patience past the limit while
the server says it is still working on it (a loaded machine makes a local model slow, not broken)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path
from typing import TypeVar

from kite_browser.agent.config import LLMConfig, default_data_dir
from kite_browser.agent.llm.chat import ChatMessage
from kite_browser.agent.llm.local_pins import MODEL_ALIAS
from kite_browser.agent.llm.pace import Pace
from kite_browser.agent.llm.progress import current, report
from kite_browser.agent.llm.queue import queue_dir, turn

TELL_AFTER_S = 15.0
"""A call expected to take longer than this says so when it starts, and how far it got every TICK_S."""
TICK_S = 20.0
POLL_S = 2.0
"""Past its limit, how often a call asks the server whether it is still working on it."""
_ASK_TIMEOUT_S = 2.0

T = TypeVar("T")


async def server_busy(api_base: str, api_key: str | None) -> bool | None:
    """Whether a llama.cpp server is working on a request now (``GET /slots``: a slot ``is_processing``);
    None when the server does not say (another kind of server, its slots endpoint off, unreachable).

    llama.cpp answers ``/slots`` from the loop that runs the model, between two batches: while it reads a long
    prompt on a loaded machine (a 2,048-token batch can take minutes) the question waits. No answer in time
    therefore means busy; ``llm.local_stretch`` bounds how long that is believed."""
    import httpx  # litellm's own HTTP client

    root = api_base.rstrip("/").removesuffix("/v1")
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        async with httpx.AsyncClient(timeout=_ASK_TIMEOUT_S) as client:
            answer = await client.get(f"{root}/slots", headers=headers)
        slots = answer.json() if answer.status_code == 200 else None
    except httpx.TimeoutException:
        return True
    except (httpx.HTTPError, ValueError):
        return None
    if not isinstance(slots, list):
        return None
    return any(isinstance(slot, dict) and slot.get("is_processing") for slot in slots)


def bundled(model: str) -> bool:
    """The model string the bundled local model is called with (``agent.llm.local``)."""
    return model.endswith("/" + MODEL_ALIAS)


def applies(config: LLMConfig, on_this_machine: bool) -> bool:
    """``llm.local_server``: auto = the bundled model; on = any server on this machine; off = none."""
    if not on_this_machine or config.local_server == "off":
        return False
    return config.local_server == "on" or bundled(config.model or "")


class LocalCall:
    def __init__(self, config: LLMConfig, model: str, queue_root: Path | None = None) -> None:
        self.config = config
        self.pace = Pace(config.local_prompt_tps, config.local_gen_tps)
        root = queue_root or default_data_dir()
        self.folder = queue_dir(root, config.api_base or "")
        self.waited_s = 0.0
        """Seconds this model's calls spent waiting for their turn (not counted against the retry budget)."""
        self.prompt_tokens = 0
        self.expected_s = 0.0
        self.stretched_s = 0.0
        """Seconds calls ran past their limit because the server was still working on them."""

    def cap_s(self, limit_s: float) -> float:
        """The most a call may take while the server keeps working on it (``llm.local_stretch`` x its limit)."""
        return limit_s * max(1.0, self.config.local_stretch)

    async def supervise(self, call: Awaitable[T], limit_s: float, api_key: str | None = None) -> T:
        """Run ``call``. At ``limit_s`` a call the server is still working on goes on (its turn is held, so the
        work is this call's), up to ``cap_s``; a call the server is not working on, or on a server that does not
        say (no ``/slots``), ends there with ``TimeoutError`` as any timed-out call."""
        task = asyncio.ensure_future(call)
        loop = asyncio.get_running_loop()
        start = loop.time()
        cap = self.cap_s(limit_s)
        try:
            done, _ = await asyncio.wait({task}, timeout=limit_s)
            while not done:
                elapsed = loop.time() - start
                busy = elapsed < cap and await server_busy(self.config.api_base or "", api_key)
                if not busy:  # the server may have just finished it: its answer gets a moment to arrive
                    done, _ = await asyncio.wait({task}, timeout=POLL_S)
                    if done:
                        break
                    raise TimeoutError(f"no answer in {loop.time() - start:.0f}s (limit {limit_s:.0f}s)")
                self.stretched_s = max(self.stretched_s, loop.time() - start - limit_s)
                done, _ = await asyncio.wait({task}, timeout=min(POLL_S, max(0.0, cap - elapsed)))
            return task.result()
        finally:
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    def plan(self, model: str, messages: list[ChatMessage]) -> float:
        """The next call's time limit (seconds), from its prompt's size and the server's speed so far."""
        self.prompt_tokens = _count(model, messages)
        reply_cap = self.config.max_output_tokens
        self.expected_s = self.pace.expected_s(self.prompt_tokens, reply_cap)
        return self.pace.limit_s(self.prompt_tokens, reply_cap, self.config.timeout_s)

    @contextlib.asynccontextmanager
    async def turn(self, limit_s: float) -> AsyncIterator[None]:
        """Wait for the call's turn, then keep telling how it goes until it ends."""
        async with contextlib.AsyncExitStack() as stack:
            self.waited_s += await stack.enter_async_context(turn(self.folder, current()))
            ticker = None
            if self.expected_s > TELL_AFTER_S and current() is not None:
                prompt_tps, _ = self.pace.speeds()
                await report(
                    f"the local model reads {self.prompt_tokens:,} prompt tokens at about {prompt_tps:.0f}/s: "
                    f"expect ~{self.expected_s:.0f}s (limit {limit_s:.0f}s)"
                )
                ticker = asyncio.create_task(self._tick(limit_s))
            try:
                yield
            finally:
                if ticker is not None:
                    ticker.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await ticker

    async def _tick(self, limit_s: float) -> None:
        loop = asyncio.get_running_loop()
        started = loop.time()
        while True:
            await asyncio.sleep(TICK_S)  # a progress line every TICK_S while the call runs
            spent = loop.time() - started
            if spent <= limit_s:
                await report(f"the local model is still working: {spent:.0f}s of up to {limit_s:.0f}s")
            else:
                await report(
                    f"the local model is still working: {spent:.0f}s, past its {limit_s:.0f}s limit while the "
                    f"server is busy on it (up to {self.cap_s(limit_s):.0f}s)"
                )

    def learn(self, response: object, completion_tokens: int) -> None:
        """Take the server's speeds from a reply (llama.cpp sends ``timings``)."""
        self.pace.learn(getattr(response, "timings", None), completion_tokens)


def _count(model: str, messages: list[ChatMessage]) -> int:
    from kite_browser.agent.llm.error_map import _import_litellm

    try:
        return int(_import_litellm().token_counter(model=model, messages=messages))
    except Exception:
        return sum(len(str(m.get("content", ""))) for m in messages) // 3 + 1
