"""The settle after a navigation, old against new: what the snapshot right after ``navigate`` holds, and how long
the navigate took, with ``waits.navigation_settle: window`` (the load event, then a network-quiet window) and
``observer`` (the page watched from its first line by an init script).

    python -m kite_browser.evals.bench.settle_compare [--json] [--reps N] [--classes corpus,sites,risk] [DIR]

Pages, in three classes: ``corpus``, the saved real pages of ``DIR`` (default: the ``shared/pages`` corpus,
served by a local static server, third-party hosts unresolvable as in ``evals.bench.snapshot``); ``sites``, the
bundled sites' pages (``evals.sites.server``); ``risk``, the pages of ``evals/sites/static/test/settle-*.html``
that draw content late (timers over 250 ms, timer chains, an IntersectionObserver, animation frames, a Web
Worker, chained fetches, a fetch started by the load handler, a pushState router). Each page is opened by the
real ``navigate`` action in one browser context per mode (the order alternates), then snapshotted. Compared per
page and repetition: the set of (role, name) of the interactive elements and the rendered snapshot's tokens.
Reported per class: the elements OLD had and NEW missed (and the other way), pages where that happened in
every repetition, and the median navigate time of each mode.
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

from playwright.async_api import Browser

from kite_browser.agent.browser.chromium import require_chromium
from kite_browser.agent.browser.context import ContextSession
from kite_browser.agent.browser.driver import playwright_driver
from kite_browser.agent.browser.executor import ActionExecutor
from kite_browser.agent.browser.render import render_observation
from kite_browser.agent.browser.snapshot import Snapshotter
from kite_browser.agent.browser.tokens import count_tokens, warm_up
from kite_browser.agent.config import KiteConfig
from kite_browser.evals.bench.corpus import OFFLINE, corpus_missing_message, find_corpus, pages_in
from kite_browser.evals.sites.server import STATIC, SitesServer
from kite_browser.evals.static import serve

MODES = ("window", "observer")
SITES_PAGES = [
    "/",
    "/shop/",
    "/shop/cart",
    "/account/login",
    "/account/register",
    "/help/returns",
    "/forms/index.html",
    "/dynamic/index.html",
    "/frames/index.html",
    "/zh/index.html",
    "/test/counter.html",
    "/test/listbox.html",
    "/test/custom-controls.html",
    "/test/throws.html",
    "/test/document-open.html",
]


def risk_pages() -> list[str]:
    return [f"/test/{p.name}" for p in sorted((STATIC / "test").glob("settle-*.html"))]


class _Mode:
    """One browser context driven by Kite's executor with one navigation_settle mode."""

    def __init__(self, mode: str, browser: Browser, tmp: Path) -> None:
        self.mode, self.browser, self.tmp = mode, browser, tmp

    async def start(self) -> _Mode:
        cfg = KiteConfig.model_validate({"waits": {"navigation_settle": self.mode}})
        self.context = await self.browser.new_context(viewport={"width": 1280, "height": 800})
        self.session = ContextSession(self.context, downloads_dir=self.tmp / self.mode)
        await self.context.new_page()
        self.session.drain_events()
        self.snap = Snapshotter(cfg.snapshot)
        self.ex = ActionExecutor(self.session, self.snap, cfg, run_dir=self.tmp / self.mode)
        self.budget = cfg.snapshot.token_budget
        return self

    async def visit(self, url: str) -> dict[str, Any]:
        t0 = time.perf_counter()
        res = await self.ex.execute({"action": "navigate", "url": url})
        ms = (time.perf_counter() - t0) * 1000
        obs = await self.snap.snapshot(self.session.page)
        text = render_observation(obs, budget_tokens=self.budget)
        elements = sorted({(e.role or e.kind, e.name) for e in obs.elements})
        return {"ok": res.ok, "ms": ms, "elements": elements, "tokens": count_tokens(text)}

    async def close(self) -> None:
        await self.context.close()


async def compare(pages: dict[str, list[str]], reps: int, tmp: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    async with playwright_driver() as pw:
        browser = await pw.chromium.launch(executable_path=require_chromium(), headless=True, args=[OFFLINE])
        modes = {m: await _Mode(m, browser, tmp).start() for m in MODES}
        await asyncio.gather(*(m.visit("about:blank") for m in modes.values()))  # warm up
        for cls, urls in pages.items():
            rows = []
            for url in urls:
                runs: dict[str, list[dict[str, Any]]] = {m: [] for m in MODES}
                for rep in range(reps):
                    for m in MODES if rep % 2 == 0 else MODES[::-1]:
                        runs[m].append(await modes[m].visit(url))
                rows.append(_row(url, runs["window"], runs["observer"]))
                print(f"  {cls} {url[-60:]}: {_brief(rows[-1])}", file=sys.stderr)
            out[cls] = {"summary": _summary(rows), "pages": rows}
        for mode in modes.values():
            await mode.close()
        await browser.close()
    return out


def _row(url: str, old: list[dict[str, Any]], new: list[dict[str, Any]]) -> dict[str, Any]:
    missing: list[set[tuple[str, str]]] = []
    extra: list[set[tuple[str, str]]] = []
    for o, n in zip(old, new, strict=True):
        so, sn = set(map(tuple, o["elements"])), set(map(tuple, n["elements"]))
        missing.append(so - sn)
        extra.append(sn - so)
    return {
        "url": url,
        "old_ms": [round(r["ms"], 1) for r in old],
        "new_ms": [round(r["ms"], 1) for r in new],
        "old_elements": [len(r["elements"]) for r in old],
        "new_elements": [len(r["elements"]) for r in new],
        "old_tokens": [r["tokens"] for r in old],
        "new_tokens": [r["tokens"] for r in new],
        "missing_any": sorted(map(list, set().union(*missing))),
        "missing_every": sorted(map(list, set.intersection(*missing))) if missing else [],
        "extra_any": sorted(map(list, set().union(*extra))),
        "extra_every": sorted(map(list, set.intersection(*extra))) if extra else [],
    }


def _brief(r: dict[str, Any]) -> str:
    return (
        f"old {statistics.median(r['old_ms']):.0f} ms new {statistics.median(r['new_ms']):.0f} ms; "
        f"missing {len(r['missing_any'])} (every rep {len(r['missing_every'])}) extra {len(r['extra_any'])}"
    )


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    old = [t for r in rows for t in r["old_ms"]]
    new = [t for r in rows for t in r["new_ms"]]
    return {
        "pages": len(rows),
        "old_navigate_median_ms": round(statistics.median(old), 1) if old else None,
        "new_navigate_median_ms": round(statistics.median(new), 1) if new else None,
        "missing_elements_any_rep": sum(len(r["missing_any"]) for r in rows),
        "missing_elements_every_rep": sum(len(r["missing_every"]) for r in rows),
        "pages_missing_any_rep": sum(1 for r in rows if r["missing_any"]),
        "extra_elements_any_rep": sum(len(r["extra_any"]) for r in rows),
        "extra_elements_every_rep": sum(len(r["extra_every"]) for r in rows),
        "old_tokens_median": statistics.median(t for r in rows for t in r["old_tokens"]) if rows else None,
        "new_tokens_median": statistics.median(t for r in rows for t in r["new_tokens"]) if rows else None,
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    ap.add_argument("--reps", type=int, default=3, help="repetitions per page and mode (default 3)")
    ap.add_argument("--classes", default="corpus,sites,risk", help="page classes to run (default: all)")
    ap.add_argument("corpus", nargs="?", type=Path, help="folder of saved pages (default: shared/pages)")
    args = ap.parse_args(argv)
    classes = [c.strip() for c in args.classes.split(",") if c.strip()]
    corpus = args.corpus or find_corpus()
    if "corpus" in classes and corpus is None:
        ap.error(corpus_missing_message())
    warm_up()
    load = _load()
    tmp = Path("/tmp") / f"kite-settle-compare-{int(time.time())}"
    with SitesServer() as sites, serve(corpus or STATIC) as corpus_base:
        pages: dict[str, list[str]] = {}
        if "risk" in classes:
            pages["risk"] = [sites.url(p) for p in risk_pages()]
        if "sites" in classes:
            pages["sites"] = [sites.url(p) for p in SITES_PAGES]
        if "corpus" in classes and corpus is not None:
            pages["corpus"] = [f"{corpus_base}/{p}" for p in pages_in(corpus)]
        result = asyncio.run(compare(pages, args.reps, tmp))
    result["load_before_after"] = [load, _load()]
    if args.json:
        print(json.dumps(result, indent=1))
        return
    print(f"{'class':<8}{'pages':>6}{'old ms':>9}{'new ms':>9}{'missing':>9}{'(every)':>9}{'extra':>7}")
    for cls, res in result.items():
        if cls == "load_before_after":
            continue
        s = res["summary"]
        print(
            f"{cls:<8}{s['pages']:>6}{s['old_navigate_median_ms']:>9}{s['new_navigate_median_ms']:>9}"
            f"{s['missing_elements_any_rep']:>9}{s['missing_elements_every_rep']:>9}{s['extra_elements_any_rep']:>7}"
        )
        for r in res["pages"]:
            if r["missing_any"] or r["extra_any"]:
                print(f"    {r['url']}: missing {r['missing_any']} extra {r['extra_any']}")
    print(f"load average before/after: {result['load_before_after']}")


def _load() -> float:
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except OSError:
        return -1.0


if __name__ == "__main__":
    main()
