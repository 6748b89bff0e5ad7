"""Ctrl-C and SIGTERM for the commands that run tasks (run, batch, eval).

The first signal calls ``on_interrupt()`` at once — from the signal handler, so before the event loop can
hear that Chromium died of the same Ctrl-C — and then cancels the command's task, which stops the run(s),
saves their records and closes the browser on its way out; a second signal raises ``KeyboardInterrupt``
(no waiting for a clean stop). The context manager yields a :class:`Heard`: which signal came, if any.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import FrameType

SIGNALS = (signal.SIGINT, signal.SIGTERM)


@dataclass
class Heard:
    """The first signal that interrupted the command (None: none did)."""

    signal: signal.Signals | None = None

    @property
    def exit_code(self) -> int:
        """The shell's convention: 128 + the signal's number (130 for Ctrl-C, 143 for SIGTERM)."""
        return 128 + int(self.signal or signal.SIGINT)


def _nothing() -> None:
    return None


@contextlib.contextmanager
def interruptible(
    on_interrupt: Callable[[], None] = _nothing, signals: tuple[signal.Signals, ...] = SIGNALS
) -> Iterator[Heard]:
    heard = Heard()
    task = asyncio.current_task()
    if task is None or threading.current_thread() is not threading.main_thread():
        yield heard  # signals can only be handled in the main thread
        return
    loop = asyncio.get_running_loop()

    def handler(signum: int, frame: FrameType | None) -> None:
        if heard.signal is not None:
            raise KeyboardInterrupt
        heard.signal = signal.Signals(signum)
        on_interrupt()
        task.cancel()
        loop.call_soon_threadsafe(_nothing)  # wake the loop if it sleeps in select()

    previous = {s: signal.getsignal(s) for s in signals}
    for s in signals:
        signal.signal(s, handler)
    try:
        yield heard
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
