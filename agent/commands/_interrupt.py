"""Ctrl-C and SIGTERM for the commands that run many tasks (batch, eval).

The first signal calls ``on_interrupt()`` at once — from the signal handler, so before the event loop can
hear that Chromium died of the same Ctrl-C — and then cancels the command's task; a second signal raises
``KeyboardInterrupt`` (no waiting for a clean stop).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType

SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def interruptible(on_interrupt: Callable[[], None]) -> Iterator[None]:
    task = asyncio.current_task()
    if task is None or threading.current_thread() is not threading.main_thread():
        yield  # signals can only be handled in the main thread
        return
    loop = asyncio.get_running_loop()
    heard = 0

    def handler(signum: int, frame: FrameType | None) -> None:
        nonlocal heard
        heard += 1
        if heard > 1:
            raise KeyboardInterrupt
        on_interrupt()
        task.cancel()
        loop.call_soon_threadsafe(lambda: None)  # wake the loop if it sleeps in select()

    previous = {s: signal.getsignal(s) for s in SIGNALS}
    for s in SIGNALS:
        signal.signal(s, handler)
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
