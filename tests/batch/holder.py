"""``kite/holder``: a fake model for the Ctrl-C tests that holds a task in flight until Ctrl-C.

Call 1 scrolls; call 2 creates the file named by ``KITE_TEST_HOLD_FILE`` (if it does not exist yet: the test
waits for it) and waits until it is cancelled, then answers anyway (a scroll), as a library that swallows a
cancellation would (Python 3.11's ``asyncio.wait_for`` can lose a cancel that races a finishing call); call 3
is ``done``. Without the file variable, or once the file exists, call 2 just scrolls.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from agent.llm.fakes import FakeReply, register_fake

SCROLL = FakeReply(tool_calls=[{"name": "scroll", "arguments": {"direction": "down"}}])


def _claim(hold: str | None) -> bool:
    """Create the hold file; False when there is none to create (no variable, or it exists already)."""
    if not hold:
        return False
    try:
        with Path(hold).open("x", encoding="utf-8") as f:
            f.write("holding")
    except FileExistsError:
        return False
    return True


class Holder:
    def __init__(self) -> None:
        self.calls = 0

    async def __call__(self, messages: list[dict[str, Any]], tools: Any, kwargs: dict[str, Any]) -> FakeReply:
        self.calls += 1
        if self.calls == 2 and _claim(os.environ.get("KITE_TEST_HOLD_FILE")):
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                return SCROLL  # the cancel is swallowed
        if self.calls >= 3:
            return FakeReply(tool_calls=[{"name": "done", "arguments": {"success": True, "answer": "held"}}])
        return SCROLL


def register_holder() -> Holder:
    model = Holder()
    register_fake("holder", model)
    return model
