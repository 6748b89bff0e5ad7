"""What starting Playwright's driver costs, with and without Node's compile cache, side by side.

    python -m kite_browser.evals.bench.driver_start [--reps N]

Every ``BrowserSession`` starts its own driver (a Node process running Playwright's server) before Chromium.
Per repetition, alternating which goes first: a driver started and stopped with the cache Kite sets
(``NODE_COMPILE_CACHE``, warmed by one start before timing) and with it off (``NODE_DISABLE_COMPILE_CACHE=1``);
then one whole ``BrowserSession`` start and close, for scale. Timed are the wall clock and the CPU of this
process and of its children once they ended (the driver, and Chromium below it). Medians are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import statistics
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from tempfile import TemporaryDirectory

from kite_browser.agent.browser.chromium import require_chromium
from kite_browser.agent.browser.driver import start_driver, use_node_compile_cache
from kite_browser.agent.browser.session import BrowserSession
from kite_browser.agent.config import BrowserConfig

OFF = "NODE_DISABLE_COMPILE_CACHE"


def _cpu_s() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


async def _timed(step: Callable[[], Awaitable[None]]) -> tuple[float, float]:
    """(CPU ms, wall ms) of one step."""
    c0, w0 = _cpu_s(), time.perf_counter()
    await step()
    return (_cpu_s() - c0) * 1000, (time.perf_counter() - w0) * 1000


async def _driver(cached: bool) -> None:
    if cached:
        os.environ.pop(OFF, None)
    else:
        os.environ[OFF] = "1"
    try:
        _, pw = await start_driver()
        await pw.stop()
    finally:
        os.environ.pop(OFF, None)


async def main(reps: int) -> None:
    use_node_compile_cache()
    print(f"compile cache: {os.environ['NODE_COMPILE_CACHE']}")
    await _driver(True)  # the cache written once, as the first start after an install does
    rows: dict[str, list[tuple[float, float]]] = {"cache on": [], "cache off": [], "session": []}
    with TemporaryDirectory() as home:
        config = BrowserConfig(chromium_path=require_chromium(), block_external_hosts=True, data_dir=home)

        async def session() -> None:
            async with BrowserSession(config, downloads_dir=Path(home) / "downloads"):
                pass

        for i in range(reps):
            order = [True, False] if i % 2 == 0 else [False, True]
            for cached in order:
                step = functools.partial(_driver, cached)
                rows["cache on" if cached else "cache off"].append(await _timed(step))
            rows["session"].append(await _timed(session))
    med = {
        k: (statistics.median(c for c, _ in v), statistics.median(w for _, w in v)) for k, v in rows.items()
    }
    print(f"{'median of ' + str(reps):24s} {'CPU ms':>8s} {'wall ms':>8s}")
    for name, label in (
        ("cache on", "driver, cache on"),
        ("cache off", "driver, cache off"),
        ("session", "session start + close"),
    ):
        print(f"{label:24s} {med[name][0]:8.0f} {med[name][1]:8.0f}")
    on, off = med["cache on"], med["cache off"]
    print(f"{'on / off':24s} {on[0] / off[0]:8.2f} {on[1] / off[1]:8.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=15, help="repetitions (default 15)")
    asyncio.run(main(parser.parse_args().reps))
