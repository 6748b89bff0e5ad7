"""Event-loop lag: how late a ``sleep(interval)`` on the running loop wakes, sampled for as long as a block runs.

    async with LoopLag() as lag:
        ...  # the work under measurement, on this loop
    lag.summary()  # {"loop_lag_p50_ms": ..., "loop_lag_p99_ms": ..., "loop_lag_max_ms": ..., "loop_lag_samples": n}

A wake-up late by L ms means something held the loop (synchronous work in a callback) or the process was not
scheduled for L ms: on an idle machine the first dominates. Every other task of the loop (an MCP server's other
sessions) waited as long.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from types import TracebackType


class LoopLag:
    def __init__(self, interval_s: float = 0.02) -> None:
        self.interval_s = interval_s
        self.lags_s: list[float] = []
        self._task: asyncio.Task[None] | None = None

    async def _probe(self) -> None:
        while True:
            start = time.perf_counter()
            await asyncio.sleep(self.interval_s)
            self.lags_s.append(max(time.perf_counter() - start - self.interval_s, 0.0))

    async def __aenter__(self) -> LoopLag:
        self._task = asyncio.create_task(self._probe())
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def summary(self) -> dict[str, float]:
        ordered = sorted(self.lags_s) or [0.0]

        def at(q: float) -> float:
            return round(1000 * ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 1)

        return {
            "loop_lag_p50_ms": at(0.5),
            "loop_lag_p99_ms": at(0.99),
            "loop_lag_max_ms": at(1.0),
            "loop_lag_samples": len(self.lags_s),
        }
