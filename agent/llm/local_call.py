"""What a call to a model server on this machine needs beyond a remote call: its turn in the shared queue
(``agent.llm.queue``), a time limit that follows the prompt's size and the server's speed
(``agent.llm.pace``), and progress told while it runs (``agent.llm.progress``)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from kite_browser.agent.config import LLMConfig, default_data_dir
from kite_browser.agent.llm.local_pins import MODEL_ALIAS
from kite_browser.agent.llm.pace import Pace
from kite_browser.agent.llm.progress import current, report
from kite_browser.agent.llm.queue import queue_dir, turn

TELL_AFTER_S = 15.0
"""A call expected to take longer than this says so when it starts, and how far it got every TICK_S."""
TICK_S = 20.0


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

    def plan(self, model: str, messages: list[dict[str, Any]]) -> float:
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
            await report(
                f"the local model is still working: {loop.time() - started:.0f}s of up to {limit_s:.0f}s"
            )

    def learn(self, response: Any, completion_tokens: int) -> None:
        """Take the server's speeds from a reply (llama.cpp sends ``timings``)."""
        self.pace.learn(getattr(response, "timings", None), completion_tokens)


def _count(model: str, messages: list[dict[str, Any]]) -> int:
    from kite_browser.agent.llm.error_map import _import_litellm

    try:
        return int(_import_litellm().token_counter(model=model, messages=messages))
    except Exception:
        return sum(len(str(m.get("content", ""))) for m in messages) // 3 + 1
