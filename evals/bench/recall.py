"""Recall benchmark: how many of the controls a person can see and hit does the snapshot list?

    python -m kite_browser.evals.bench.recall [--json] [--no-sites] [DIR ...]

Ground truth (``recall_probe.py``, independent of extractor.js): every element matching a plain interactive
selector that is rendered, in the viewport, and hit at its centre — looking through transparent,
non-interactive boxes; ``aria-hidden`` does not exclude; an image map's ``<area>`` counts (hit on a grid over its
image); a label whose checkbox, radio or file input is not itself hit counts, and a control counts as listed
when one of its labels is. ``strict`` is the older ground truth (aria-hidden
left out, no looking through), reported beside it. ``bad`` counts listed elements that are not visible or
are covered (must stay 0). Pages: each DIR (default: the ``shared/pages`` corpus when found) plus the bundled
sites' pages.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.async_api import Frame, Page

from kite_browser.agent.browser.chromium import require_chromium
from kite_browser.agent.browser.driver import playwright_driver
from kite_browser.agent.browser.snapshot import Snapshotter
from kite_browser.evals.bench.corpus import OFFLINE, find_corpus, pages_in
from kite_browser.evals.bench.recall_probe import CHECK_JS, TRUTH_JS
from kite_browser.evals.static import serve

CORPUS = find_corpus()
SITE_DIR = Path(__file__).parents[1] / "sites" / "static" / "test"
SITE_PATHS = [
    "/",
    "/shop/",
    "/shop/product/sky-blue-espresso-mug",
    "/shop/cart",
    "/account/login",
    "/account/register",
    "/forms/",
    "/dynamic/",
    "/frames/",
    "/zh/shop/",
    *(f"/test/{p.name}" for p in sorted(SITE_DIR.glob("*.html"))),
]


@dataclass
class PageRecall:
    """One page: ground-truth sizes, what the snapshot missed, and listed elements that should not be."""

    truth: int = 0
    strict_truth: int = 0
    missing: list[str] = field(default_factory=list)
    strict_missing: list[str] = field(default_factory=list)
    bad: list[int] = field(default_factory=list)


_FRAME_HIT_JS = """(f) => {
  const r = f.getBoundingClientRect();
  const h = f.getRootNode().elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
  return h === f;
}"""


async def _frame_fully_in_view(frame: Frame, page: Page) -> bool:
    if frame is page.main_frame:
        return True
    try:
        owner = await frame.frame_element()
        box = await owner.bounding_box()
        hit = await owner.evaluate(_FRAME_HIT_JS)  # not covered, nor inert behind a modal dialog
    except Exception:
        return False
    vp = page.viewport_size or {"width": 1280, "height": 800}
    return (
        bool(hit)
        and box is not None
        and box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= vp["width"]
        and box["y"] + box["height"] <= vp["height"]
    )


async def check_page(page: Page, snap: Snapshotter, key: str = "__kiteExtractor") -> PageRecall:
    """Snapshot ``page`` and compare it with both ground truths; check every listed element is hittable.

    ``key``: the window property of the extractor ``snap`` runs (another one in the snapshot A/B bench)."""
    truth_js, check_js = (
        js.replace("window.__kiteExtractor", f"window.{key}") for js in (TRUTH_JS, CHECK_JS)
    )
    obs = await snap.snapshot(page)
    by_index = snap._state(page).by_index
    ask = snap.call  # where the extractor runs: Kite's world (or the page's, for an older one)
    listed = {(by_index[e.index][1], by_index[e.index][2]) for e in obs.elements if e.in_viewport}
    out = PageRecall()
    for frame in page.frames:
        if (
            frame.is_detached()
            or frame.url.startswith("chrome-error:")
            or not await _frame_fully_in_view(frame, page)
        ):
            continue
        for strict in (False, True):
            try:
                res = await ask(frame, truth_js, strict)
            except Exception:  # a frame without the extractor (hidden, detached) has no listed elements
                continue
            for local, html, labels in res["found"]:
                if strict:
                    out.strict_truth += 1
                else:
                    out.truth += 1
                if not {(res["token"], i) for i in [local, *labels]} & listed:  # or through a listed label
                    (out.strict_missing if strict else out.missing).append(html)
    for e in obs.elements:
        frame, _, local = by_index[e.index]
        if not e.in_viewport or frame.is_detached():
            continue
        try:
            ok = (await ask(frame, check_js, [local]))[0]
        except Exception as exc:  # the frame went away since the snapshot (detach-iframe page)
            if "detached" in str(exc) or "destroyed" in str(exc):
                continue
            raise
        if not ok:
            out.bad.append(e.index)
    return out


async def run(dirs: list[Path], sites: bool) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    async with playwright_driver() as pw:
        browser = await pw.chromium.launch(executable_path=require_chromium(), headless=True, args=[OFFLINE])
        ctx = await browser.new_context(viewport={"width": 1280, "height": 800})
        snap = Snapshotter()

        async def one(name: str, url: str) -> None:
            page = await ctx.new_page()
            try:
                try:
                    await page.goto(url, wait_until="load", timeout=15000)
                except Exception:  # a saved page that never finishes loading is measured as it is
                    pass
                r = await check_page(page, snap)
                rows.append({"page": name, **r.__dict__})
                print(f"measured {name}", file=sys.stderr, flush=True)
            finally:
                await page.close()

        for d in dirs:
            with serve(d) as base:
                for rel in pages_in(d):
                    await one(f"{d.name}/{rel}", f"{base}/{rel}")
        if sites:
            from kite_browser.evals.sites import SitesServer

            with SitesServer() as srv:
                for path in SITE_PATHS:
                    await one(f"sites{path}", srv.url(path))
        await browser.close()
    return rows


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def recall(truth: str, missing: str, which: list[dict[str, Any]]) -> float:
        total = sum(r[truth] for r in which)
        return round(1 - sum(len(r[missing]) for r in which) / total, 4) if total else 1.0

    out: dict[str, Any] = {"pages_count": len(rows)}
    for label, which in (
        ("all", rows),
        ("corpus", [r for r in rows if not r["page"].startswith("sites/")]),
        ("sites", [r for r in rows if r["page"].startswith("sites/")]),
    ):
        out[f"{label}_truth_count"] = sum(r["truth"] for r in which)
        out[f"{label}_recall_ratio"] = recall("truth", "missing", which)
        out[f"{label}_strict_recall_ratio"] = recall("strict_truth", "strict_missing", which)
        out[f"{label}_bad_count"] = sum(len(r["bad"]) for r in which)
    return out


def table(rows: list[dict[str, Any]], s: dict[str, Any]) -> str:
    head = f"{'page':62} {'truth':>5} {'miss':>5} {'strict':>6} {'s.miss':>6} {'bad':>4}"
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(
            f"{r['page'][:62]:62} {r['truth']:>5} {len(r['missing']):>5} {r['strict_truth']:>6}"
            f" {len(r['strict_missing']):>6} {len(r['bad']):>4}"
        )
    lines.append("-" * len(head))
    for label in ("corpus", "sites", "all"):
        lines.append(
            f"{label}: recall {s[f'{label}_recall_ratio']} of {s[f'{label}_truth_count']} (strict"
            f" {s[f'{label}_strict_recall_ratio']}), listed but not hittable: {s[f'{label}_bad_count']}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m kite_browser.evals.bench.recall", description=__doc__.split("\n")[0]
    )
    parser.add_argument("dirs", nargs="*", type=Path, help="folders of saved pages (default: the corpus)")
    parser.add_argument("--json", action="store_true", help="print one JSON object of metrics")
    parser.add_argument("--no-sites", action="store_true", help="leave out the bundled sites")
    parser.add_argument("--missing", action="store_true", help="list the missing elements per page")
    args = parser.parse_args(argv)
    dirs = args.dirs or ([CORPUS] if CORPUS is not None else [])
    for d in dirs:
        if not d.is_dir():
            print(f"not a folder: {d}", file=sys.stderr)
            return 2
    rows = asyncio.run(run(dirs, not args.no_sites))
    s = summarise(rows)
    if args.json:
        print(json.dumps(s))
    else:
        print(table(rows, s))
        if args.missing:
            for r in rows:
                for m in r["missing"]:
                    print(f"{r['page']}: {m}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
