"""Where Kite's own time in a step goes: a small per-phase clock the step record carries.

The loop (and whatever observes and acts for it) wraps each phase in ``timer.phase(name)``; the totals, in
milliseconds, go into the step's record (``phases_ms`` in steps.jsonl), and ``evals/bench/step_overhead.py``
prints their medians. The model call is timed too (``model``) but is not Kite's own time.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

PHASES = ("observe", "render", "prompt", "parse", "gate", "act", "settle", "record")
"""Kite's own phases, in step order: observe (snapshot, screenshot), render (the page as text), prompt (the
messages, token counts), parse (the reply into actions), gate (the safety decision), act (the action, its second
look), settle (waiting for the page's reaction), record (the run record's writes)."""


class StepTimer:
    """Milliseconds per phase of one step; a phase entered twice adds up, and a phase inside another is taken
    out of the outer one (render inside prompt counts as render only)."""

    def __init__(self) -> None:
        self.ms: dict[str, float] = {}
        self._open: list[str] = []

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        t0 = time.perf_counter()
        self._open.append(name)
        try:
            yield
        finally:
            self._open.pop()
            ms = (time.perf_counter() - t0) * 1000
            self.add(name, ms)
            if self._open:
                self.add(self._open[-1], -ms)

    def add(self, name: str, ms: float) -> None:
        self.ms[name] = self.ms.get(name, 0.0) + ms

    def take(self, name: str, ms: float, into: str) -> None:
        """Move ``ms`` of phase ``name`` into phase ``into`` (the settle measured inside an action's time)."""
        ms = min(ms, self.ms.get(name, 0.0))
        self.add(name, -ms)
        self.add(into, ms)

    def rounded(self) -> dict[str, float]:
        return {k: round(v, 2) for k, v in self.ms.items()}
