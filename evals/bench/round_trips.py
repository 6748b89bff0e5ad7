"""Round trips to the browser per action and per observe, counted on Playwright's connection (load-independent).

    python -m kite_browser.evals.bench.round_trips [--steps N] [--json]

Runs ``step_overhead``'s workload (the same sites, actions and 0-latency fake model) with every call Kite's
Playwright client sends to its driver recorded: when it was sent and when its answer came. For each action
(``env.act``: the unit, its second looks, its settle) and each ``observe`` it reports the calls sent
(``calls``) and the sequential round trips (``trips``: the longest chain of calls each sent only after an
earlier one of the same window was answered; calls sent together count once). Medians over the steps,
per action kind and site. The order of sends and answers, not their timing, decides the count.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from playwright._impl.connection import Connection

from kite_browser.agent.browser.env import BrowserEnv
from kite_browser.agent.browser.timing import StepTimer
from kite_browser.evals.bench import step_overhead


@dataclass
class Window:
    """The calls of one phase: each call's depth (1 + the deepest call answered before it was sent)."""

    name: str
    depth: dict[int, int] = field(default_factory=dict)
    answered: int = 0
    """The deepest call answered so far."""
    methods: list[str] = field(default_factory=list)
    """Each call's method and depth (``evaluateExpression@3``), in the order sent."""

    @property
    def trips(self) -> int:
        return max(self.depth.values(), default=0)


@dataclass
class Counter:
    open: Window | None = None
    done: list[tuple[str, str, Window]] = field(default_factory=list)
    site: str = ""
    seq: int = 0

    @contextlib.contextmanager
    def window(self, name: str) -> Iterator[Window]:
        outer, self.open = self.open, Window(name)
        try:
            yield self.open
        finally:
            self.done.append((self.site, name, self.open))
            self.open = outer

    def sent(self, method: str, future: asyncio.Future[Any]) -> None:
        win = self.open
        if win is None:
            return
        self.seq += 1
        call = self.seq
        win.depth[call] = win.answered + 1
        win.methods.append(f"{method}@{win.depth[call]}")

        def answered(_: asyncio.Future[Any]) -> None:
            win.answered = max(win.answered, win.depth[call])

        future.add_done_callback(answered)


COUNTER = Counter()


def _patch() -> None:
    send = Connection.send_message_to_server

    def counted(self: Connection, obj: Any, method: str, params: Any, options: dict[str, Any]) -> Any:
        future = send(self, obj, method, params, options)
        if method != "__waitInfo__" and isinstance(future, asyncio.Future):
            COUNTER.sent(params.get("method", method) if method == "send" else method, future)
        return future

    Connection.send_message_to_server = counted  # type: ignore[method-assign,assignment]

    act = BrowserEnv.act

    async def act_counted(self: BrowserEnv, action: Any, *args: Any, **kwargs: Any) -> Any:
        with COUNTER.window(action.action):
            return await act(self, action, *args, **kwargs)

    BrowserEnv.act = act_counted  # type: ignore[method-assign]

    phase = StepTimer.phase

    @contextlib.contextmanager
    def phase_counted(self: StepTimer, name: str) -> Iterator[None]:
        if name != "observe":
            with phase(self, name):
                yield
            return
        with COUNTER.window("observe"), phase(self, name):
            yield

    StepTimer.phase = phase_counted  # type: ignore[method-assign]


async def count(steps: int) -> dict[str, Any]:
    """Per action kind and site: the median calls and sequential round trips (the first step left out)."""
    _patch()
    register = step_overhead.register_fake

    def per_site(name: str, handler: Any) -> None:  # the workload registers one fake per site, in order
        COUNTER.site = next(s for s in step_overhead.WORKLOADS if s not in seen)
        seen.append(COUNTER.site)
        register(name, handler)

    seen: list[str] = []
    step_overhead.register_fake = per_site
    await step_overhead.measure(steps, screenshots=False)
    out: dict[str, Any] = {}
    by: dict[str, list[Window]] = {}
    skipped: set[tuple[str, str]] = set()
    for site, name, win in COUNTER.done:
        if name == "done" or (site, name) not in skipped:  # the first of each: one-time warm-ups
            skipped.add((site, name))
            continue
        by.setdefault(f"{site} {name}", []).append(win)
    for key, wins in by.items():
        out[key] = {
            "trips": statistics.median(w.trips for w in wins),
            "calls": statistics.median(len(w.methods) for w in wins),
            "n": len(wins),
            "methods": statistics.mode(" ".join(w.methods) for w in wins).split(),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m kite_browser.evals.bench.round_trips", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--steps", type=int, default=6, help="steps per site (default 6)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--methods", action="store_true", help="also list each window's calls, in order")
    args = parser.parse_args(argv)
    result = asyncio.run(count(args.steps))
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{'window':<20} {'trips':>6} {'calls':>6} {'n':>4}")
    for key, row in result.items():
        print(f"{key:<20} {row['trips']:>6} {row['calls']:>6} {row['n']:>4}")
        if args.methods:
            print("    " + " ".join(row["methods"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
