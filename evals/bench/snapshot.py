"""Snapshot benchmark: Kite's snapshot vs Playwright's aria_snapshot() on the same pages, same run.

    python -m kite_browser.evals.bench.snapshot [--json] [--repeat N] [--no-miniwob] [DIR ...]
    python -m kite_browser.evals.bench.snapshot --ab REV [--json] [--repeat N] [--cold N] [DIR ...]   (evals/bench/snapshot_ab.py)

Each DIR is a folder of saved pages (``<name>/index.html`` or ``<name>.html``), served by a local static
server; default: ``evals/bench/pages`` (synthetic heavy pages) plus the MiniWoB++ pages named in
``evals/bench/pages/miniwob.txt``. Per page (in a tab observed once before it navigated there, as an agent's tab
is): the first (cold) snapshot, the first capture after a navigation, then the median of ``--repeat`` warm
ones; ``extract_ms`` is page loaded → LLM text ready (extraction + render + token count), as in
``kite snapshot --json``. Prints a table, or with ``--json`` one object of metrics (unit-suffixed keys).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from kite_browser.agent.browser.chromium import require_chromium
from kite_browser.agent.browser.driver import playwright_driver
from kite_browser.agent.browser.render import render_observation
from kite_browser.agent.browser.snapshot import Snapshotter
from kite_browser.agent.browser.tokens import count_tokens, warm_up
from kite_browser.evals.bench.corpus import OFFLINE, pages_in
from kite_browser.evals.static import serve

PAGES = Path(__file__).parent / "pages"


def miniwob_pages() -> tuple[Path, list[str]] | None:
    try:
        import miniwob
    except ImportError:
        return None
    root = Path(miniwob.__file__).parent / "html"
    names = [
        n.strip()
        for n in (PAGES / "miniwob.txt").read_text().splitlines()
        if n.strip() and not n.startswith("#")
    ]
    return root, [f"miniwob/{n}.html" for n in names if (root / "miniwob" / f"{n}.html").is_file()]


def pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[k]


async def measure(page: Page, snap: Snapshotter, repeat: int) -> dict[str, Any]:
    """Cold then warm snapshots of the loaded page, and Playwright's aria snapshot."""
    times: list[float] = []
    text = ""
    obs = None
    for _ in range(repeat + 1):
        t0 = time.perf_counter()
        obs = await snap.snapshot(page)
        text = render_observation(obs, budget_tokens=snap.config.token_budget)
        tokens = count_tokens(text)
        times.append((time.perf_counter() - t0) * 1000)
    aria_times: list[float] = []
    aria: str | None = None
    for _ in range(max(repeat, 1)):
        t0 = time.perf_counter()
        try:
            aria = await page.locator("body").aria_snapshot(timeout=20000)
        except PlaywrightError:  # aria_snapshot gives up on some very large pages
            aria = None
            break
        aria_times.append((time.perf_counter() - t0) * 1000)
    assert obs is not None
    return {
        "cold_ms": times[0],
        "extract_ms": statistics.median(times[1:]),
        "tokens": tokens,
        "elements": len(obs.elements),
        "offscreen": obs.summary.above + obs.summary.below,
        "warnings": len(obs.summary.warnings),
        "nodes": await page.evaluate("() => document.getElementsByTagName('*').length"),
        "aria_ms": statistics.median(aria_times) if aria is not None else None,
        "aria_tokens": count_tokens(aria) if aria is not None else None,
    }


async def run(corpora: list[tuple[Path, list[str]]], repeat: int) -> list[dict[str, Any]]:
    warm_up()
    rows = []
    async with playwright_driver() as pw:
        browser = await pw.chromium.launch(executable_path=require_chromium(), headless=True, args=[OFFLINE])
        ctx = await browser.new_context(viewport={"width": 1280, "height": 800})
        snap = Snapshotter()
        for root, pages in corpora:
            with serve(root) as base:
                for rel in pages:
                    page = await ctx.new_page()
                    await snap.snapshot(
                        page
                    )  # an agent's tab was observed before it navigated: cold = after one
                    try:
                        await page.goto(f"{base}/{rel}", wait_until="load", timeout=15000)
                    except Exception:  # a saved page that never finishes loading is measured as it is
                        pass
                    cover = page.locator("#sync-task-cover")  # MiniWoB++: start the episode first
                    if await cover.count() and await cover.is_visible():
                        await cover.click()
                    try:
                        rows.append({"page": f"{root.name}/{rel}", **await measure(page, snap, repeat)})
                        print(f"measured {rel}", file=sys.stderr, flush=True)
                    finally:
                        await page.close()
        await browser.close()
    return rows


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    col = {
        k: [float(r[k]) for r in rows if r[k] is not None]
        for k in ("extract_ms", "cold_ms", "tokens", "elements", "aria_ms", "aria_tokens")
    }
    out: dict[str, Any] = {"pages_count": len(rows)}
    for key, unit in (("extract", "ms"), ("cold", "ms"), ("aria", "ms")):
        vals = col[f"{key}_ms"]
        out[f"{key}_median_{unit}"] = round(statistics.median(vals), 1) if vals else 0.0
        out[f"{key}_p95_{unit}"] = round(pct(vals, 0.95), 1)
        out[f"{key}_max_{unit}"] = round(max(vals, default=0.0), 1)
    for key in ("tokens", "aria_tokens", "elements"):
        out[f"{key}_median"] = statistics.median(col[key]) if col[key] else 0
        out[f"{key}_p95"] = pct(col[key], 0.95)
    big = [r for r in rows if "nodes-10k" in r["page"]]
    if big:
        out["nodes_10k_extract_ms"] = round(big[0]["extract_ms"], 1)
        out["nodes_10k_cold_ms"] = round(big[0]["cold_ms"], 1)
    return out


def _num(value: float | None) -> str:
    return "timeout" if value is None else f"{value:.1f}" if isinstance(value, float) else str(value)


def table(rows: list[dict[str, Any]], summary: dict[str, Any]) -> str:
    head = f"{'page':58} {'nodes':>6} {'elem':>5} {'ms':>7} {'cold':>7} {'tokens':>6} | {'aria ms':>7} {'aria tok':>8}"
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(
            f"{r['page'][:58]:58} {r['nodes']:>6} {r['elements']:>5} {r['extract_ms']:>7.1f} {r['cold_ms']:>7.1f}"
            f" {r['tokens']:>6} | {_num(r['aria_ms']):>7} {_num(r['aria_tokens']):>8}"
        )
    s = summary
    lines += [
        "-" * len(head),
        f"kite snapshot: median {s['extract_median_ms']} ms, p95 {s['extract_p95_ms']} ms (cold median "
        f"{s['cold_median_ms']} ms, p95 {s['cold_p95_ms']} ms); tokens median {s['tokens_median']}, p95 {s['tokens_p95']}",
        f"aria_snapshot: median {s['aria_median_ms']} ms, p95 {s['aria_p95_ms']} ms; tokens median "
        f"{s['aria_tokens_median']}, p95 {s['aria_tokens_p95']}",
    ]
    if "nodes_10k_extract_ms" in s:
        lines.append(
            f"10,000-node page: {s['nodes_10k_extract_ms']} ms warm, {s['nodes_10k_cold_ms']} ms cold"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m kite_browser.evals.bench.snapshot", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "dirs", nargs="*", type=Path, metavar="DIR", help="corpus folders (default: evals/bench/pages)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object of metrics")
    parser.add_argument(
        "--repeat", type=int, default=None, help="warm snapshots per page (default 3; with --ab 10 per side)"
    )
    parser.add_argument(
        "--ab",
        metavar="REV",
        help="compare this tree's extractor with REV's, alternating in one browser (evals/bench/snapshot_ab.py)",
    )
    parser.add_argument(
        "--cold",
        type=int,
        default=1,
        help="with --ab: first captures per page and side, each after a navigation in a fresh tab (median)",
    )
    parser.add_argument("--no-miniwob", action="store_true", help="leave out the MiniWoB++ pages")
    args = parser.parse_args(argv)
    for d in args.dirs:
        if not d.is_dir():
            print(f"not a folder: {d}", file=sys.stderr)
            return 2
    if (args.repeat is not None and args.repeat < 1) or args.cold < 1:
        print("--repeat and --cold take a whole number of at least 1", file=sys.stderr)
        return 2
    if args.ab:
        return _main_ab(args.ab, args.dirs, args.repeat or 10, args.json, args.cold)
    corpora = [(d, pages_in(d)) for d in (args.dirs or [PAGES])]
    if not args.dirs and not args.no_miniwob and (mw := miniwob_pages()):
        corpora.append(mw)
    rows = asyncio.run(run(corpora, args.repeat or 3))
    summary = summarise(rows)
    if args.json:
        print(json.dumps({**summary, "pages": rows}))
    else:
        print(table(rows, summary))
    return 0


def _main_ab(rev: str, dirs: list[Path], repeat: int, as_json: bool, cold: int = 1) -> int:
    from kite_browser.evals.bench import snapshot_ab as ab

    corpora = [(d.name, d) for d in dirs] or ab.default_corpora()
    start = ab.loadavg()
    try:
        rows = asyncio.run(ab.run_ab(rev, corpora, repeat, pages_in, cold))
    except ab.RevisionError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    summary = ab.summarise_ab(rev, rows, (start, ab.loadavg()))
    print(json.dumps({**summary, "rows": rows}) if as_json else ab.table_ab(rows, summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
