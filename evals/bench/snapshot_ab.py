"""The snapshot A/B: this tree's extractor against another commit's, in one browser, alternating.

    python -m kite_browser.evals.bench.snapshot --ab REV [--repeat N] [--cold N] [--json] [DIR ...]

``REV``'s ``agent/browser/extractor.js`` (``git show``) is installed beside this tree's in every page under its
own window key, and both are driven by this tree's Snapshotter, so the comparison isolates the extractor (the
Python side, the renderer and the token counter are the same code for both; ``REV``'s extractor runs where it ran
then, in the page's own world, with its listener tracking, and this tree's in Kite's world). Each page is opened
in a tab that was observed once before it navigated there (as an agent's tab is), so the cold snapshot is the
first capture after a navigation. Per page: ``--cold`` such tabs (default 1), one cold snapshot each per
side, the order flipped every tab (a side's cold time: their median); in the last tab then ``--repeat`` rounds of one snapshot each, the order flipped every round, so load on the machine falls on
both sides alike. Each snapshot is timed page loaded -> text for the model (extract + render + token count, as
``kite snapshot --json``); ``js`` is the extractor's own time in the page, ``cpu`` the CPU time the page's renderer
main thread spent over the snapshot (Chromium's ThreadTime metric: the work, without the wait for a core, so it
holds still on a loaded machine). The slowest round of each side is kept with how much of its excess was in the
extractor and in renderer CPU, to tell an outlier's cause (the machine, or the work). Then each side's recall against the
independent probe (evals/bench/recall_probe.py). Pages: the ``shared/pages`` corpus and the heavy synthetic
pages of ``evals/bench/pages`` (10k and 50k nodes, deep shadow trees, many iframes), or each DIR.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.async_api import BrowserContext, CDPSession, Page

from kite_browser.agent.browser.chromium import require_chromium
from kite_browser.agent.browser.driver import playwright_driver
from kite_browser.agent.browser.extractor_call import EXTRACTOR, ExtractorScript
from kite_browser.agent.browser.render import render_observation
from kite_browser.agent.browser.snapshot import Snapshotter
from kite_browser.agent.browser.tokens import count_tokens, warm_up
from kite_browser.evals.bench.corpus import OFFLINE, REPO_ROOT, find_corpus
from kite_browser.evals.bench.recall import check_page
from kite_browser.evals.static import serve

OTHER_KEY = "__kiteExtractorB"
PHASES = ("walk", "geometry", "visible", "describe", "readings", "counts", "flow", "summary")
"""The extractor's phases (extractor.js ``newPhases``); ``readings`` is part of ``describe``."""


class RevisionError(Exception):
    """The named commit has no extractor to compare with."""


def extractor_at(rev: str, repo: Path = REPO_ROOT) -> ExtractorScript:
    """``rev``'s extractor.js, installable beside this tree's (another window key)."""
    try:
        source = subprocess.run(
            ["git", "-C", str(repo), "show", f"{rev}:agent/browser/extractor.js"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        why = getattr(exc, "stderr", "") or str(exc)
        raise RevisionError(
            f"no agent/browser/extractor.js at {rev!r}: {why.strip().splitlines()[-1]}"
        ) from exc
    try:
        return ExtractorScript.of(source, key=OTHER_KEY, world=False, listeners=listeners_at(rev, repo))
    except ValueError as exc:
        raise RevisionError(f"{rev}: {exc}") from exc


def listeners_at(rev: str, repo: Path = REPO_ROOT) -> str | None:
    """``rev``'s listener tracking (agent/browser/listeners.js) when it is the page-world kind that an
    extractor of the page's world reads (a function of no arguments), else None."""
    try:
        source = subprocess.run(
            ["git", "-C", str(repo), "show", f"{rev}:agent/browser/listeners.js"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return source if "() => {" in source and "__kiteListeners" in source else None


@dataclass
class Side:
    """One extractor under test and what it measured."""

    name: str
    snap: Snapshotter
    key: str
    ms: list[float] = field(default_factory=list)
    js_ms: list[float] = field(default_factory=list)
    """The extractor's own time in the page, per snapshot (the rounds' ``js_ms[i]`` goes with ``ms[i]``)."""
    cpu_ms: list[float] = field(default_factory=list)
    """CPU time of the page's renderer main thread over each snapshot: the work done, not the wait for a core,
    so it holds still on a loaded machine where ``ms`` does not (``cpu_ms[i]`` goes with ``ms[i]``)."""
    phases: dict[str, list[float]] = field(default_factory=dict)
    colds: list[float] = field(default_factory=list)
    """The first capture after each navigation to the page (``--cold`` of them, each in a fresh tab)."""
    tokens: int = 0
    elements: int = 0
    truth: int = 0
    missing: int = 0

    async def once(self, page: Page, cdp: CDPSession) -> float:
        cpu0 = await thread_ms(cdp)
        t0 = time.perf_counter()
        obs = await self.snap.snapshot(page)
        text = render_observation(obs, budget_tokens=self.snap.config.token_budget)
        self.tokens = count_tokens(text)
        ms = (time.perf_counter() - t0) * 1000
        self.cpu_ms.append(await thread_ms(cdp) - cpu0)
        self.elements = len(obs.elements)
        self.js_ms.append(obs.timings.get("js_ms", 0.0))
        for phase in PHASES:
            if f"js_{phase}_ms" in obs.timings:
                self.phases.setdefault(phase, []).append(obs.timings[f"js_{phase}_ms"])
        return ms

    def slowest(self) -> dict[str, Any]:
        """The slowest round: which one, and how much of its time over the median was the extractor's own
        (in the page) rather than outside it (the round trips, Python, the machine's other work)."""
        i = max(range(len(self.ms)), key=self.ms.__getitem__)
        over = self.ms[i] - statistics.median(self.ms)
        js_over = self.js_ms[i] - statistics.median(self.js_ms)
        cpu_over = self.cpu_ms[i] - statistics.median(self.cpu_ms)
        return {
            "round": i,
            "over_ms": round(over, 2),
            "js_over_ms": round(js_over, 2),
            "cpu_over_ms": round(cpu_over, 2),
        }

    @property
    def cold_ms(self) -> float:
        return statistics.median(self.colds) if self.colds else 0.0

    def row(self) -> dict[str, Any]:
        return {
            "median_ms": round(statistics.median(self.ms), 2),
            "p95_ms": round(pct(self.ms, 0.95), 2),
            "js_median_ms": round(statistics.median(self.js_ms), 2),
            "cpu_median_ms": round(statistics.median(self.cpu_ms), 2),
            "cpu_p95_ms": round(pct(self.cpu_ms, 0.95), 2),
            "cold_ms": round(self.cold_ms, 1),
            "colds_ms": [round(c, 1) for c in self.colds],
            "tokens": self.tokens,
            "elements": self.elements,
            "truth": self.truth,
            "missing": self.missing,
            "phases_ms": {p: round(statistics.median(v), 2) for p, v in self.phases.items()},
            "slowest": self.slowest(),
        }


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))] if ordered else 0.0


def default_corpora() -> list[tuple[str, Path]]:
    """(group, folder): the saved pages when found, then the heavy synthetic pages."""
    corpus = find_corpus()
    out = [("corpus", corpus)] if corpus is not None else []
    return [*out, ("heavy", Path(__file__).parent / "pages")]


async def thread_ms(cdp: CDPSession) -> float:
    """The renderer main thread's CPU time so far (ms), as Chromium's performance metrics count it."""
    metrics = (await cdp.send("Performance.getMetrics"))["metrics"]
    return 1000 * float(next(m["value"] for m in metrics if m["name"] == "ThreadTime"))


async def measure_cold(page: Page, sides: list[Side], flip: bool) -> CDPSession:
    """Each side's first capture of the page (the order flipped with ``flip``); the page's CDP session back."""
    cdp = await page.context.new_cdp_session(page)
    await cdp.send("Performance.enable")
    for side in sides[::-1] if flip else sides:  # installs each extractor in every frame
        side.colds.append(await side.once(page, cdp))
        side.js_ms.clear()
        side.cpu_ms.clear()
        side.phases.clear()
    return cdp


async def measure_page(page: Page, sides: list[Side], repeat: int, flip: bool) -> None:
    order = sides[::-1] if flip else sides
    cdp = await measure_cold(page, sides, flip)
    for rnd in range(repeat):
        for side in order if rnd % 2 == 0 else order[::-1]:
            side.ms.append(await side.once(page, cdp))
    await cdp.detach()
    for side in sides:
        rec = await check_page(page, side.snap, key=side.key)
        side.truth, side.missing = rec.truth, len(rec.missing)


async def open_page(ctx: BrowserContext, url: str, snaps: tuple[Snapshotter, ...]) -> Page:
    """A fresh tab at ``url``, observed once by each snapshotter before it navigated there (as an agent's tab
    is: Kite observes a tab before it navigates it further), so each side's next capture is its first after
    a navigation."""
    page = await ctx.new_page()
    for snap in snaps:
        await snap.snapshot(page)
    try:
        await page.goto(url, wait_until="load", timeout=15000)
    except Exception:  # a saved page that never finishes loading is measured as it is
        pass
    return page


async def run_ab(
    rev: str, corpora: list[tuple[str, Path]], repeat: int, pages_of: Any, cold: int = 1
) -> list[dict[str, Any]]:
    """One row per page: the group, the page, its node count, and each side's measurements. ``cold``: how
    many first captures per page and side (each after a navigation in a fresh tab; their median is the
    side's cold time); the last tab also gets the warm rounds and the recall check."""
    other = extractor_at(rev)
    warm_up()
    rows: list[dict[str, Any]] = []
    async with playwright_driver() as pw:
        browser = await pw.chromium.launch(executable_path=require_chromium(), headless=True, args=[OFFLINE])
        ctx = await browser.new_context(viewport={"width": 1280, "height": 800})
        new_snap, old_snap = Snapshotter(), Snapshotter(script=other)
        if (old_listeners := listeners_at(rev)) is not None:  # as that commit's sessions did
            await ctx.add_init_script(f"({old_listeners})();")
        n = 0
        for group, root in corpora:
            with serve(root) as base:
                for rel in pages_of(root):
                    sides = [Side("new", new_snap, EXTRACTOR.key), Side("old", old_snap, other.key)]
                    for k in range(cold - 1):
                        page = await open_page(ctx, f"{base}/{rel}", (new_snap, old_snap))
                        try:
                            await (await measure_cold(page, sides, flip=(n + k) % 2 == 1)).detach()
                        finally:
                            await page.close()
                    page = await open_page(ctx, f"{base}/{rel}", (new_snap, old_snap))
                    try:
                        await measure_page(page, sides, repeat, flip=(n + cold - 1) % 2 == 1)
                        nodes = await page.evaluate("() => document.getElementsByTagName('*').length")
                        rows.append(
                            {"group": group, "page": rel, "nodes": nodes, **{s.name: s.row() for s in sides}}
                        )
                        print(f"measured {group}/{rel}", file=sys.stderr, flush=True)
                    finally:
                        await page.close()
                    n += 1
        await browser.close()
    return rows


def summarise_ab(rev: str, rows: list[dict[str, Any]], load: tuple[float, float]) -> dict[str, Any]:
    out: dict[str, Any] = {"rev": rev, "load_1m_start": load[0], "load_1m_end": load[1]}
    for group in dict.fromkeys(r["group"] for r in rows):
        rs = [r for r in rows if r["group"] == group]
        g: dict[str, Any] = {"pages_count": len(rs)}
        for side in ("new", "old"):
            g[f"{side}_median_ms"] = round(statistics.median(r[side]["median_ms"] for r in rs), 2)
            g[f"{side}_js_median_ms"] = round(statistics.median(r[side]["js_median_ms"] for r in rs), 2)
            g[f"{side}_cpu_median_ms"] = round(statistics.median(r[side]["cpu_median_ms"] for r in rs), 2)
            g[f"{side}_cpu_total_ms"] = round(sum(r[side]["cpu_median_ms"] for r in rs), 1)
            g[f"{side}_total_ms"] = round(sum(r[side]["median_ms"] for r in rs), 1)
            g[f"{side}_tokens"] = sum(r[side]["tokens"] for r in rs)
            truth = sum(r[side]["truth"] for r in rs)
            g[f"{side}_truth_count"] = truth
            g[f"{side}_recall_ratio"] = (
                round(1 - sum(r[side]["missing"] for r in rs) / truth, 4) if truth else 1.0
            )
            g[f"{side}_cold_median_ms"] = round(statistics.median(r[side]["cold_ms"] for r in rs), 2)
            g[f"{side}_cold_p95_ms"] = round(pct([r[side]["cold_ms"] for r in rs], 0.95), 2)
        g["cold_median_ratio"] = round(g["new_cold_median_ms"] / max(g["old_cold_median_ms"], 0.01), 3)
        g["cold_page_ratio_median"] = round(
            statistics.median(r["new"]["cold_ms"] / max(r["old"]["cold_ms"], 0.01) for r in rs), 3
        )
        g["median_ratio"] = round(g["new_median_ms"] / g["old_median_ms"], 3)
        g["total_ratio"] = round(g["new_total_ms"] / g["old_total_ms"], 3)
        g["cpu_median_ratio"] = round(g["new_cpu_median_ms"] / max(g["old_cpu_median_ms"], 0.01), 3)
        g["cpu_total_ratio"] = round(g["new_cpu_total_ms"] / max(g["old_cpu_total_ms"], 0.01), 3)
        cpu_p95 = [(r["new"]["cpu_p95_ms"] / max(r["old"]["cpu_p95_ms"], 0.01), r["page"]) for r in rs]
        g["cpu_worst_p95_ratio"], g["cpu_worst_p95_page"] = round(max(cpu_p95)[0], 3), max(cpu_p95)[1]
        g["cpu_p95_over_1_2_count"] = sum(1 for ratio, _ in cpu_p95 if ratio > 1.2)
        ratios = [r["new"]["median_ms"] / r["old"]["median_ms"] for r in rs]
        g["page_ratio_median"] = round(statistics.median(ratios), 3)
        p95 = [(r["new"]["p95_ms"] / r["old"]["p95_ms"], r["page"]) for r in rs]
        worst = max(p95)
        g["worst_p95_ratio"], g["worst_p95_page"] = round(worst[0], 3), worst[1]
        over = [r for r in rs if r["new"]["p95_ms"] > 1.2 * r["old"]["p95_ms"]]
        g["p95_over_1_2_count"] = len(over)
        # Where those pages' slowest new rounds lost their time: mostly outside the extractor (round trips, Python,
        # the machine) or in it; and how many were the first round after the cold snapshots.
        g["p95_over_outside_count"] = sum(
            1 for r in over if r["new"]["slowest"]["js_over_ms"] < 0.5 * r["new"]["slowest"]["over_ms"]
        )
        g["p95_over_not_cpu_count"] = sum(
            1 for r in over if r["new"]["slowest"]["cpu_over_ms"] < 0.5 * r["new"]["slowest"]["over_ms"]
        )
        g["p95_over_first_round_count"] = sum(1 for r in over if r["new"]["slowest"]["round"] == 0)
        g["tokens_change_pct"] = round(100 * (g["new_tokens"] / max(g["old_tokens"], 1) - 1), 2)
        for phase in PHASES:
            vals = [r["new"]["phases_ms"].get(phase, 0.0) for r in rs]
            g[f"new_{phase}_total_ms"] = round(sum(vals), 1)
        out[group] = g
    big = [r for r in rows if r["page"].startswith("nodes-50k")]
    if big:
        out["nodes_50k_new_median_ms"] = big[0]["new"]["median_ms"]
        out["nodes_50k_old_median_ms"] = big[0]["old"]["median_ms"]
    return out


def table_ab(rows: list[dict[str, Any]], s: dict[str, Any]) -> str:
    head = (
        f"{'page':50} {'nodes':>6} | {'new ms':>7} {'p95':>7} {'js':>6} {'cpu':>6} {'tok':>5} {'rec':>7} |"
        f" {'old ms':>7} {'p95':>7} {'js':>6} {'cpu':>6} {'tok':>5} {'rec':>7} | {'ratio':>5} |"
        f" {'cold new':>8} {'old':>7}"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        cells = []
        for side in ("new", "old"):
            x = r[side]
            rec = f"{x['truth'] - x['missing']}/{x['truth']}"
            cells.append(
                f"{x['median_ms']:>7.1f} {x['p95_ms']:>7.1f} {x['js_median_ms']:>6.1f} {x['cpu_median_ms']:>6.1f}"
                f" {x['tokens']:>5} {rec:>7}"
            )
        ratio = r["new"]["median_ms"] / r["old"]["median_ms"]
        name = f"{r['group']}/{r['page']}"[:50]
        lines.append(
            f"{name:50} {r['nodes']:>6} | {cells[0]} | {cells[1]} | {ratio:>5.2f} |"
            f" {r['new']['cold_ms']:>8.1f} {r['old']['cold_ms']:>7.1f}"
        )
    lines.append("-" * len(head))
    lines.append(
        f"new = this tree, old = {s['rev']}; load (1 min) {s['load_1m_start']} -> {s['load_1m_end']}"
    )
    for group, g in s.items():
        if not isinstance(g, dict):
            continue
        lines.append(
            f"{group} ({g['pages_count']} pages): median of page medians new {g['new_median_ms']} ms, old"
            f" {g['old_median_ms']} ms, ratio {g['median_ratio']} (sum {g['total_ratio']}, page ratios' median"
            f" {g['page_ratio_median']}); worst page p95 ratio {g['worst_p95_ratio']} ({g['worst_p95_page']});"
            f" tokens {g['new_tokens']} vs {g['old_tokens']} ({g['tokens_change_pct']:+}%); recall new"
            f" {g['new_recall_ratio']} of {g['new_truth_count']}, old {g['old_recall_ratio']} of {g['old_truth_count']}"
        )
        lines.append(
            f"  cold (the first capture after a navigation, median over pages): new {g['new_cold_median_ms']} ms"
            f" (p95 {g['new_cold_p95_ms']}), old {g['old_cold_median_ms']} ms (p95 {g['old_cold_p95_ms']}),"
            f" ratio {g['cold_median_ratio']} (page ratios' median {g['cold_page_ratio_median']})"
        )
        lines.append(
            f"  renderer CPU per snapshot (median of page medians): new {g['new_cpu_median_ms']} ms, old"
            f" {g['old_cpu_median_ms']} ms, ratio {g['cpu_median_ratio']} (sum {g['cpu_total_ratio']}); worst page"
            f" CPU p95 ratio {g['cpu_worst_p95_ratio']} ({g['cpu_worst_p95_page']}), {g['cpu_p95_over_1_2_count']}"
            " pages above 1.2x"
        )
        lines.append(
            f"  pages with p95 above 1.2x old: {g['p95_over_1_2_count']}; their slowest new round mostly outside the"
            f" extractor (round trips, Python, the machine): {g['p95_over_outside_count']}, not CPU work in the"
            f" renderer: {g['p95_over_not_cpu_count']}; the first round: {g['p95_over_first_round_count']}"
        )
        total = sum(g[f"new_{p}_total_ms"] for p in PHASES if p != "readings") or 1.0
        parts = ", ".join(
            f"{p} {g[f'new_{p}_total_ms']} ms ({100 * g[f'new_{p}_total_ms'] / total:.0f}%)" for p in PHASES
        )
        lines.append(f"  new extractor phases (sum of page medians): {parts}")
    if "nodes_50k_new_median_ms" in s:
        lines.append(
            f"50,000-node page: new {s['nodes_50k_new_median_ms']} ms, old {s['nodes_50k_old_median_ms']} ms"
        )
    return "\n".join(lines)


def loadavg() -> float:
    return round(os.getloadavg()[0], 2)
