"""Benchmark: the modules' tools side by side with the same operation in plain Playwright, in one run.

    python -m kite_browser.evals.bench.tools [--reps N] [--think S] [--json] [--pages DIR] [--no-pages]

Per operation (navigate, click, type, fill, get_text on the bundled forms page) the plain Playwright call
and the ``chrome_*`` tool call (through ``Toolbox.call``: argument validation, safety gate, typed errors)
run back to back, each in its own browser, so both see the same machine load; which one goes first
alternates from one repetition to the next. Reported: medians and p95 of both, the ratio of the medians
kite/plain (target: <= 1.2 for navigate/click/type/get_text), the median of the per-repetition ratios (each
pair ran within milliseconds of each other: robust to load that drifts during the run) and the load
average before and after. The ``browser`` module's navigate/snapshot/act are timed too, warm, as the chrome
side is: its first navigate (which starts its sandbox browser, ~2-5 s) is reported on a row of its own, and two
untimed rounds follow before the timed ones (with 10 repetitions the p95 is the slowest one, which would
otherwise be the cold start). Token parity: on each saved page of ``--pages`` (default
``../shared/pages``) the ``browser`` snapshot's tokens are compared with ``kite snapshot``'s. The
``javascript`` module's ``run_javascript`` is timed against plain Playwright (``evals/bench/tools_js.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from playwright.async_api import Page

from kite_browser.agent.browser.chromium import require_chromium
from kite_browser.agent.browser.driver import playwright_driver
from kite_browser.agent.config import load_config
from kite_browser.agent.modules import Toolbox
from kite_browser.evals.bench.corpus import OFFLINE, find_corpus, pages_in
from kite_browser.evals.bench.snapshot import pct
from kite_browser.evals.bench.tools_js import THINK_S, javascript_timings
from kite_browser.evals.sites import SitesServer
from kite_browser.evals.static import serve

SHARED_PAGES = find_corpus()
"""The saved-page corpus next to the checkout, or above it (``evals/bench/corpus.py``); None without one."""
Op = Callable[[], Awaitable[Any]]
OPS = ("navigate", "click", "type", "fill", "get_text")


def _check(result: dict[str, Any]) -> dict[str, Any]:
    if "error" in result:
        raise RuntimeError(f"tool call failed: {result}")
    return result


async def _time(fn: Op) -> float:
    t0 = time.perf_counter()
    await fn()
    return (time.perf_counter() - t0) * 1000


def _plain_ops(page: Page, url: str) -> dict[str, Op]:
    return {
        "navigate": lambda: page.goto(url, wait_until="load"),
        "click": lambda: page.click("#subscribe"),
        "type": lambda: page.locator("#full-name").press_sequentially("abc"),
        "fill": lambda: page.fill("#email", "ada@example.org"),
        "get_text": lambda: page.inner_text("#submit"),
    }


def _chrome_ops(tb: Toolbox, tab: str, url: str) -> dict[str, Op]:
    async def call(tool: str, args: dict[str, Any]) -> dict[str, Any]:
        return _check(await tb.call(tool, {"tabId": tab, **args}))

    return {
        "navigate": lambda: call("chrome_navigate", {"url": url}),
        "click": lambda: call("chrome_click", {"selector": "#subscribe"}),
        "type": lambda: call("chrome_type", {"selector": "#full-name", "text": "abc"}),
        "fill": lambda: call("chrome_fill", {"selector": "#email", "value": "ada@example.org"}),
        "get_text": lambda: call("chrome_get_text", {"selector": "#submit"}),
    }


async def side_by_side(reps: int, sites: SitesServer) -> dict[str, dict[str, list[float]]]:
    url = sites.url("/forms/")
    config = load_config(
        env={}, overrides={"modules": ["chrome", "browser"], "browser.block_external_hosts": True}
    )
    times: dict[str, dict[str, list[float]]] = {"plain": {}, "chrome": {}, "browser": {}}
    async with playwright_driver() as pw, Toolbox(config, handle_signals=False) as tb:
        browser = await pw.chromium.launch(executable_path=require_chromium(), headless=True, args=[OFFLINE])
        page = await (await browser.new_context(viewport={"width": 1280, "height": 800})).new_page()
        tab = _check(await tb.call("chrome_launch", {}))["tabId"]
        plain, chrome = _plain_ops(page, url), _chrome_ops(tb, tab, url)
        await plain["navigate"]()
        await chrome["navigate"]()
        for _ in range(2):  # warm both sides up (first clicks and key events pay one-time costs)
            for name in plain:
                await plain[name]()
                await chrome[name]()
        for i in range(reps):
            for name in plain:
                for who, ops in (("plain", plain), ("chrome", chrome))[:: 1 if i % 2 == 0 else -1]:
                    times[who].setdefault(name, []).append(await _time(ops[name]))
        await browser.close()

        async def b(args: dict[str, Any]) -> dict[str, Any]:
            return _check(await tb.call("browser", args))

        def checkbox(snapshot: str) -> str:
            lines = [re.match(r"[\s*]*\[(\d+)\] (.*)", line) for line in snapshot.splitlines()]
            return next(m.group(1) for m in lines if m and m.group(2).startswith("checkbox"))

        bt = times["browser"]
        bt["first_navigate"] = [await _time(lambda: b({"action": "navigate", "target_url": url}))]
        for _ in range(2):  # warm up, as the chrome side was
            snap = await b({"action": "snapshot"})
            await b({"action": "act", "request": {"kind": "click", "target_id": checkbox(snap["snapshot"])}})
            await b({"action": "navigate", "target_url": url})
        for _ in range(reps):
            bt.setdefault("navigate", []).append(
                await _time(lambda: b({"action": "navigate", "target_url": url}))
            )
            t0 = time.perf_counter()
            snap = await b({"action": "snapshot"})
            bt.setdefault("snapshot", []).append((time.perf_counter() - t0) * 1000)
            act = {"action": "act", "request": {"kind": "click", "target_id": checkbox(snap["snapshot"])}}
            bt.setdefault("act_click", []).append(await _time(lambda a=act: b(a)))  # type: ignore[misc]
    return times


async def token_parity(directory: Path) -> dict[str, Any]:
    """browser-module snapshot tokens vs ``kite snapshot``'s, page by page."""
    from kite_browser.agent.browser.snapshot import Snapshotter
    from kite_browser.agent.commands.snapshot import _one

    names = pages_in(directory)
    config = load_config(env={}, overrides={"modules": ["browser"], "browser.block_external_hosts": True})
    same, rows = 0, []
    with serve(directory) as base:
        async with playwright_driver() as pw, Toolbox(config, handle_signals=False) as tb:
            browser = await pw.chromium.launch(
                executable_path=require_chromium(), headless=True, args=[OFFLINE]
            )
            page = await (await browser.new_context(viewport={"width": 1280, "height": 800})).new_page()
            snap = Snapshotter(config.snapshot)
            args = argparse.Namespace(all=False)
            for name in names:
                url = f"{base}/{name}"
                ref = await _one(page, url, snap, args, config.snapshot.token_budget)
                got = await tb.call("browser", {"action": "navigate", "target_url": url})
                if "error" in got or "error" in ref:
                    rows.append((name, ref.get("tokens"), got.get("tokens")))
                    continue
                same += ref["tokens"] == got["tokens"]
                rows.append((name, ref["tokens"], got["tokens"]))
            await browser.close()
    return {"pages": len(names), "equal": same, "rows": rows}


def summarise(times: dict[str, dict[str, list[float]]]) -> dict[str, float]:
    out: dict[str, float] = {}
    for who, ops in times.items():
        for name, xs in ops.items():
            out[f"{who}_{name}_median_ms"] = round(statistics.median(xs), 2)
            out[f"{who}_{name}_p95_ms"] = round(pct(xs, 0.95), 2)
    for name in times["plain"]:
        out[f"chrome_{name}_ratio_x"] = round(
            out[f"chrome_{name}_median_ms"] / max(out[f"plain_{name}_median_ms"], 1e-6), 2
        )
        pairs = zip(times["chrome"][name], times["plain"][name], strict=True)
        out[f"chrome_{name}_paired_ratio_x"] = round(statistics.median(k / max(p, 1e-6) for k, p in pairs), 2)
    return out


def load_average() -> float:
    return round(os.getloadavg()[0], 2)


async def run(reps: int, pages: Path | None, think: float = THINK_S) -> dict[str, Any]:
    result: dict[str, Any] = {"reps": reps, "cpus": os.cpu_count() or 0, "load_before": load_average()}
    with SitesServer() as sites:
        result.update(summarise(await side_by_side(reps, sites)))
    result.update(await javascript_timings(reps, think))
    result["load_after"] = load_average()
    if pages is not None:
        parity = await token_parity(pages)
        result["browser_snapshot_pages_count"] = parity["pages"]
        result["browser_snapshot_tokens_equal_count"] = parity["equal"]
        result["_parity_rows"] = parity["rows"]
    return result


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--reps", type=int, default=30, help="repetitions per operation (default 30)")
    ap.add_argument(
        "--think",
        type=float,
        default=THINK_S,
        help=f"pause before each run_javascript burst (default {THINK_S} s)",
    )
    ap.add_argument("--json", action="store_true", help="print one JSON object of metrics")
    ap.add_argument("--pages", type=Path, default=SHARED_PAGES, help="saved pages for the token parity check")
    ap.add_argument("--no-pages", action="store_true", help="skip the token parity check")
    args = ap.parse_args(argv)
    pages = None if args.no_pages or args.pages is None or not args.pages.is_dir() else args.pages
    result = asyncio.run(run(max(1, args.reps), pages, max(0.0, args.think)))
    rows = result.pop("_parity_rows", [])
    if args.json:
        print(json.dumps(result))
        return
    print(f"{result['reps']} repetitions; load average {result['load_before']} before, "
          f"{result['load_after']} after ({result['cpus']} CPUs)")  # fmt: skip
    print(f"{'operation':<10} {'plain ms':>16} {'chrome ms':>16} {'ratio':>6} {'paired':>7}   (median / p95)")
    for name in OPS:
        plain = f"{result[f'plain_{name}_median_ms']:.1f} / {result[f'plain_{name}_p95_ms']:.1f}"
        kite = f"{result[f'chrome_{name}_median_ms']:.1f} / {result[f'chrome_{name}_p95_ms']:.1f}"
        print(
            f"{name:<10} {plain:>16} {kite:>16} {result[f'chrome_{name}_ratio_x']:>5.2f}x "
            f"{result[f'chrome_{name}_paired_ratio_x']:>6.2f}x"
        )
    for name in ("navigate", "snapshot", "act_click"):
        print(
            f"browser module {name:<10} {result[f'browser_{name}_median_ms']:>8.1f} ms "
            f"(p95 {result[f'browser_{name}_p95_ms']:.1f})"
        )
    print(
        f"browser module first navigate (starts its sandbox; not in the rows above): "
        f"{result['browser_first_navigate_median_ms']:.1f} ms"
    )
    print(
        f"run_javascript {{return 1+1}} warm: {result['javascript_run_js_median_ms']:.1f} ms "
        f"(p95 {result['javascript_run_js_p95_ms']:.1f}); plain Playwright page+evaluate+close "
        f"{result['plain_run_js_median_ms']:.1f} ms; back to back {result['javascript_run_js_b2b_median_ms']:.1f} "
        f"ms (p95 {result['javascript_run_js_b2b_p95_ms']:.1f})"
    )
    for suffix, when in (
        ("", f"after a {result['javascript_burst_think_s']} s pause"),
        ("_nopause", "no pause"),
    ):
        print(
            f"8 concurrent run_javascript ({when}): {result[f'javascript_concurrent8{suffix}_median_ms']:.1f} ms vs "
            f"one {result[f'javascript_one{suffix}_median_ms']:.1f} ms = "
            f"{result[f'javascript_concurrent8_vs_one{suffix}_x']:.2f}x; plain Playwright, same work: "
            f"{result[f'plain_concurrent8{suffix}_median_ms']:.1f} ms vs {result[f'plain_one{suffix}_median_ms']:.1f}"
            f" ms = {result[f'plain_concurrent8_vs_one{suffix}_x']:.2f}x"
        )
    if "browser_snapshot_pages_count" in result:
        print(
            f"browser snapshot tokens equal to kite snapshot's on {result['browser_snapshot_tokens_equal_count']}"
            f"/{result['browser_snapshot_pages_count']} pages"
        )
        for name, ref, got in rows:
            if ref != got:
                print(f"  differs: {name}: kite snapshot {ref}, browser {got}")


if __name__ == "__main__":
    main()
