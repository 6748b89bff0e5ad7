"""Benchmark: latency per action kind (including settle) on the bundled sites.

    python -m evals.bench.actions [--reps N] [--json]

Targets: click without navigation <= 100 ms; type of 20 chars <= 150 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from playwright.async_api import async_playwright

from agent.browser.chromium import require_chromium
from agent.browser.context import ContextSession
from agent.browser.executor import ActionExecutor
from agent.browser.snapshot import Snapshotter
from agent.config import KiteConfig
from evals.sites import SitesServer

OFFLINE = ["--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"]


def _p95(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(0.95 * (len(xs) - 1)))]


async def _index(snap: Snapshotter, page: Any, css: str) -> int:
    obs = await snap.snapshot(page, include_all=True)
    handle = await page.locator(css).element_handle()
    for el in obs.elements:
        if el.frame is None:
            res = await snap.resolve(page, el.index)
            if await res.handle.evaluate("(a, b) => a === b", handle):
                return el.index
    raise RuntimeError(f"{css} has no index")


async def run(reps: int) -> dict[str, float]:
    cfg = KiteConfig()
    server = SitesServer().start()
    times: dict[str, list[float]] = {}
    try:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(
                executable_path=require_chromium(), headless=True, args=OFFLINE
            )
            context = await browser.new_context(viewport={"width": 1280, "height": 800})
            session = ContextSession(context, downloads_dir=Path(tempfile.mkdtemp()) / "downloads")
            page = await context.new_page()
            snap = Snapshotter(cfg.snapshot)
            ex = ActionExecutor(session, snap, cfg, run_dir=Path(tempfile.mkdtemp()))

            async def measure(name: str, make: Callable[[], Awaitable[dict[str, Any]]]) -> None:
                for _ in range(reps):
                    action = await make()
                    t0 = time.perf_counter()
                    res = await ex.execute(action)
                    dt = (time.perf_counter() - t0) * 1000
                    if not res.ok:
                        raise RuntimeError(f"{name} failed: {res.message}")
                    times.setdefault(name, []).append(dt)
                    times.setdefault(f"{name}_settle", []).append(float(res.data.get("settle_ms", 0.0)))

            await page.goto(server.url("/test/counter.html"))
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
    out: dict[str, float] = {}
    for name, xs in times.items():
        out[f"{name}_median_ms"] = round(statistics.median(xs), 1)
        out[f"{name}_p95_ms"] = round(_p95(xs), 1)
    return out


async def _const(action: dict[str, Any]) -> dict[str, Any]:
    return action


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--reps", type=int, default=15, help="Repetitions per action kind.")
    ap.add_argument("--json", action="store_true", help="Print one JSON object.")
    args = ap.parse_args(argv)
    result = asyncio.run(run(args.reps))
    if args.json:
        print(json.dumps(result))
        return
    print(f"{'action':<14}{'median ms':>11}{'p95 ms':>10}")
    for key in result:
        if key.endswith("_median_ms"):
            name = key.removesuffix("_median_ms")
            print(f"{name:<14}{result[key]:>11.1f}{result[name + '_p95_ms']:>10.1f}")


if __name__ == "__main__":
    main()
