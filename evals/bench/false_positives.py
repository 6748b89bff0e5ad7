"""False-positive count of the safety policy: how many ordinary controls would ask before a click?

    python -m kite_browser.evals.bench.false_positives [--json] [--no-sites] [--list] [DIR ...]

Each page (the saved-page corpus, ``shared/pages``, and the bundled sites' pages) is loaded in a headless
Chromium with third-party hosts unresolvable, snapshotted with every element (in view or not), and the bundled
policy (``config/safety.yaml``, no domain lists) judges a click on each listed element and Enter in each text
field. A saved real-world page has no step that pays or deletes on a person's behalf unasked, so every
``confirm`` there is a false positive; on the bundled sites the checkout, account and test pages hold the
sensitive steps the oracle must confirm, so their count is shown apart. ``--list`` prints each control that
asks, with the policy's first reason.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from playwright.async_api import Page

from kite_browser.agent.base.jsontypes import JsonObject
from kite_browser.agent.browser.actions import parse_action
from kite_browser.agent.browser.chromium import require_chromium
from kite_browser.agent.browser.driver import playwright_driver
from kite_browser.agent.browser.observation import Observation
from kite_browser.agent.browser.snapshot import Snapshotter
from kite_browser.agent.config import SafetyConfig
from kite_browser.evals.bench.corpus import OFFLINE, find_corpus, pages_in
from kite_browser.evals.bench.recall import SITE_PATHS
from kite_browser.evals.static import serve
from kite_browser.safety.policy import ConfirmLevel, SafetyPolicy

CORPUS = find_corpus()
ASKS = (ConfirmLevel.CONFIRM, ConfirmLevel.BLOCK)


@dataclass
class PageCount:
    """One page: how many controls were judged, and those a click (or Enter) on would ask first."""

    page: str
    controls: int = 0
    sensitive: str | None = None
    asks: list[str] = field(default_factory=list)
    rules: Counter[str] = field(default_factory=Counter)


def judge_page(policy: SafetyPolicy, obs: Observation, name: str) -> PageCount:
    """Judge a click on every listed element (Enter in a text field) of one observation."""
    out = PageCount(page=name, controls=len(obs.elements), sensitive=policy.page_sensitivity(obs))
    for el in obs.elements:
        raw: JsonObject = (
            {"action": "pressKey", "key": "Enter", "index": el.index}
            if el.editable
            else {"action": "click", "index": el.index}
        )
        decision = policy.evaluate(parse_action(raw), obs)
        if decision.level in ASKS:
            label = (el.name or el.attrs.get("text", "") or el.tag)[:40]
            reason = decision.reasons[0] if decision.reasons else ""
            out.asks.append(f"[{el.index}] {el.tag} {label!r}: {decision.rule}: {reason[:140]}")
            out.rules[str(decision.rule)] += 1
    return out


async def run(dirs: list[Path], sites: bool) -> list[PageCount]:
    policy = SafetyPolicy.from_config(SafetyConfig())
    rows: list[PageCount] = []
    async with playwright_driver() as pw:
        browser = await pw.chromium.launch(executable_path=require_chromium(), headless=True, args=[OFFLINE])
        ctx = await browser.new_context(viewport={"width": 1280, "height": 800})
        snap = Snapshotter()

        async def one(name: str, url: str) -> None:
            page: Page = await ctx.new_page()
            try:
                try:
                    await page.goto(url, wait_until="load", timeout=15000)
                except Exception:  # a saved page that never finishes loading is judged as it is
                    pass
                obs = await snap.snapshot(page, include_all=True)
                rows.append(judge_page(policy, obs, name))
                print(f"judged {name}", file=sys.stderr, flush=True)
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


def summarise(rows: list[PageCount]) -> JsonObject:
    out: JsonObject = {"pages_count": len(rows)}
    for label, which in (
        ("corpus", [r for r in rows if not r.page.startswith("sites/")]),
        ("sites", [r for r in rows if r.page.startswith("sites/")]),
    ):
        out[f"{label}_pages_count"] = len(which)
        out[f"{label}_controls_count"] = sum(r.controls for r in which)
        out[f"{label}_asks_count"] = sum(len(r.asks) for r in which)
        out[f"{label}_sensitive_pages_count"] = sum(1 for r in which if r.sensitive)
    return out


def table(rows: list[PageCount], s: JsonObject, listing: bool) -> str:
    head = f"{'page':60} {'controls':>8} {'asks':>5}  sensitive"
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(f"{r.page[:60]:60} {r.controls:>8} {len(r.asks):>5}  {(r.sensitive or '')[:60]}")
        if listing:
            lines.extend(f"    {a}" for a in r.asks)
    lines.append("-" * len(head))
    for label in ("corpus", "sites"):
        lines.append(
            f"{label}: {s[f'{label}_asks_count']} of {s[f'{label}_controls_count']} controls ask on"
            f" {s[f'{label}_pages_count']} pages ({s[f'{label}_sensitive_pages_count']} pages sensitive)"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m kite_browser.evals.bench.false_positives", description=__doc__.split("\n")[0]
    )
    parser.add_argument("dirs", nargs="*", type=Path, help="folders of saved pages (default: the corpus)")
    parser.add_argument("--json", action="store_true", help="print one JSON object of metrics")
    parser.add_argument("--no-sites", action="store_true", help="leave out the bundled sites")
    parser.add_argument("--list", action="store_true", help="list each control that asks, with its reason")
    args = parser.parse_args(argv)
    dirs = args.dirs or ([CORPUS] if CORPUS is not None else [])
    for d in dirs:
        if not d.is_dir():
            print(f"not a folder: {d}", file=sys.stderr)
            return 2
    rows = asyncio.run(run(dirs, not args.no_sites))
    s = summarise(rows)
    print(json.dumps(s) if args.json else table(rows, s, args.list))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
