"""Progress of a model call for whoever shows the run: the queue ahead, the expected time of a slow local call.

The loop sets a sink for the duration of a call (``progress_to``); the client reports to it (``report``)
without knowing who listens. A context variable carries it, so concurrent runs in one process each hear
their own calls.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterator
from contextvars import ContextVar

Sink = Callable[[str], Awaitable[None]]
_sink: ContextVar[Sink | None] = ContextVar("kite_model_progress", default=None)


@contextlib.contextmanager
def progress_to(sink: Sink | None) -> Iterator[None]:
    """Send the progress of the model calls made inside this block to ``sink``."""
    token = _sink.set(sink)
    try:
        yield
    finally:
        _sink.reset(token)


async def report(message: str) -> None:
    """Tell the current sink (if any) how the call is going."""
    if (sink := _sink.get()) is not None:
        await sink(message)


def current() -> Sink | None:
    return _sink.get()
