"""Benchmark: latency per action kind (including settle) on the bundled sites.

    python -m kite_browser.evals.bench.actions [--reps N] [--json] [--baseline DIR]

Targets: click without navigation <= 100 ms; type of 20 chars <= 150 ms.

``--baseline DIR`` compares side by side in the same run with another checkout of Kite (e.g. an unmodified
copy): this same script runs against DIR's ``agent`` package and against this one, alternating in rounds so
that both see the same machine load; medians and p95 are pooled over the rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from kite_browser.agent.browser.chromium import require_chromium
from kite_browser.agent.browser.context import ContextSession
from kite_browser.agent.browser.driver import playwright_driver
from kite_browser.agent.browser.executor import ActionExecutor
from kite_browser.agent.browser.snapshot import Snapshotter
from kite_browser.agent.config import KiteConfig
from kite_browser.evals.sites import SitesServer

if TYPE_CHECKING:  # annotations only: the comparison runs this file against older trees without it
    from playwright.async_api import Page

    from kite_browser.agent.base.jsontypes import JsonObject

OFFLINE = ["--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"]


def _p95(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(0.95 * (len(xs) - 1)))]


async def _index(snap: Snapshotter, page: Page, css: str) -> int:
    obs = await snap.snapshot(page, include_all=True)
    handle = await page.locator(css).element_handle()
    for el in obs.elements:
        if el.frame is None:
            res = await snap.resolve(page, el.index)
            if await res.handle.evaluate("(a, b) => a === b", handle):
                return el.index
    raise RuntimeError(f"{css} has no index")


async def run(reps: int) -> dict[str, list[float]]:
    cfg = KiteConfig()
    server = SitesServer().start()
    times: dict[str, list[float]] = {}
    try:
        async with playwright_driver() as pw:
            browser = await pw.chromium.launch(
                executable_path=require_chromium(), headless=True, args=OFFLINE
            )
            context = await browser.new_context(viewport={"width": 1280, "height": 800})
            session = ContextSession(context, downloads_dir=Path(tempfile.mkdtemp()) / "downloads")
            page = await context.new_page()
            snap = Snapshotter(cfg.snapshot)
            ex = ActionExecutor(session, snap, cfg, run_dir=Path(tempfile.mkdtemp()))

            async def measure(name: str, make: Callable[[], Awaitable[JsonObject]]) -> None:
                for _ in range(reps):
                    action: dict[str, object] = {**await make()}
                    t0 = time.perf_counter()
                    res = await ex.execute(action)
                    dt = (time.perf_counter() - t0) * 1000
                    if not res.ok:
                        raise RuntimeError(f"{name} failed: {res.message}")
                    times.setdefault(name, []).append(dt)
                    times.setdefault(f"{name}_settle", []).append(float(res.data.get("settle_ms", 0.0)))

            await page.goto(server.url("/test/counter.html"))
            for _ in range(reps):  # the machine's yardstick: one bare round trip to the page
                t0 = time.perf_counter()
                await page.evaluate("1")
                times.setdefault("roundtrip", []).append((time.perf_counter() - t0) * 1000)
            inc = await _index(snap, page, "#increment")
            await measure("click", lambda: _const({"action": "click", "index": inc}))
            await measure("hover", lambda: _const({"action": "hover", "index": inc}))
            await measure("pressKey", lambda: _const({"action": "pressKey", "key": "Shift"}))
            await page.goto(server.url("/forms/"))
            name = await _index(snap, page, "#full-name")
            country = await _index(snap, page, "#country")
            await measure(
                "type",
                lambda: _const(
                    {"action": "type", "index": name, "text": "abcdefghij0123456789", "clear": True}
                ),
            )
            await measure("select", lambda: _const({"action": "select", "index": country, "value": "Japan"}))
            await measure("scroll", lambda: _const({"action": "scroll", "direction": "down", "amount": 200}))
            await measure("executeJS", lambda: _const({"action": "executeJS", "code": "document.title"}))
            await measure("getElements", lambda: _const({"action": "getElements"}))
            await measure("screenshot", lambda: _const({"action": "screenshot"}))
            await measure(
                "navigate", lambda: _const({"action": "navigate", "url": server.url("/test/counter.html")})
            )
            await browser.close()
    finally:
        server.stop()
    return times


def summarise(times: dict[str, list[float]], prefix: str = "") -> dict[str, float]:
    out: dict[str, float] = {}
    for name, xs in times.items():
        out[f"{name}{prefix}_median_ms"] = round(statistics.median(xs), 1)
        out[f"{name}{prefix}_p95_ms"] = round(_p95(xs), 1)
    return out


def _raw_run(root: Path, reps: int) -> dict[str, list[float]]:
    """This script in a subprocess whose ``agent`` package comes from ``root``."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    cmd = [sys.executable, str(Path(__file__).resolve()), "--reps", str(reps), "--raw"]
    done = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def compare(baseline: Path, reps: int, rounds: int = 3) -> dict[str, float]:
    here = Path(__file__).resolve().parents[2]
    before: dict[str, list[float]] = {}
    after: dict[str, list[float]] = {}
    chunk = max(1, -(-reps // rounds))
    for _ in range(rounds):
        for root, pool in ((baseline, before), (here, after)):
            for name, xs in _raw_run(root, chunk).items():
                pool.setdefault(name, []).extend(xs)
    return {**summarise(after), **summarise(before, "_before")}


async def _const(action: JsonObject) -> JsonObject:
    return action


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--reps", type=int, default=15, help="Repetitions per action kind.")
    ap.add_argument("--json", action="store_true", help="Print one JSON object.")
    ap.add_argument("--baseline", type=Path, help="Another Kite checkout to compare with, in the same run.")
    ap.add_argument("--raw", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.raw:
        print(json.dumps(asyncio.run(run(args.reps))))
        return
    result = compare(args.baseline, args.reps) if args.baseline else summarise(asyncio.run(run(args.reps)))
    if args.json:
        print(json.dumps(result))
        return
    _print_table(result, compared=args.baseline is not None)


def _print_table(result: dict[str, float], compared: bool) -> None:
    names = [k.removesuffix("_median_ms") for k in result if k.endswith("_median_ms") and "_before" not in k]
    if not compared:
        print(f"{'action':<18}{'median ms':>11}{'p95 ms':>10}")
        for n in names:
            print(f"{n:<18}{result[n + '_median_ms']:>11.1f}{result[n + '_p95_ms']:>10.1f}")
        return
    print(f"{'action':<18}{'before median':>14}{'after median':>14}{'before p95':>12}{'after p95':>11}")
    for n in names:
        b, a = result.get(n + "_before_median_ms", float("nan")), result[n + "_median_ms"]
        bp, ap_ = result.get(n + "_before_p95_ms", float("nan")), result[n + "_p95_ms"]
        print(f"{n:<18}{b:>14.1f}{a:>14.1f}{bp:>12.1f}{ap_:>11.1f}")


if __name__ == "__main__":
    main()
