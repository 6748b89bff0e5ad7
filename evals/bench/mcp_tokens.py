"""MCP token benchmark: what ``kite mcp`` answers vs what Playwright MCP answers, same pages, same run.

    python -m kite_browser.evals.bench.mcp_tokens [--json] [--no-sites] [DIR ...]

Kite's side goes through the MCP SDK's own client (in-process) to Kite's MCP server: the tokens of the
``snapshot`` answer on each page, and of a ``click`` that changes the page (bundled sites). Playwright MCP
answers both with the page's ``locator("body").aria_snapshot()``, taken here on the same page in the same
browser. Recall: every visible interactive element (hit-test ground truth, as in the snapshot tests) must
appear as an element line ``[N] ...`` (or ``[N,M] ...``) of Kite's snapshot answer. DIR: folders of saved
pages (``<name>/index.html`` or ``<name>.html``); default: the saved-page corpus found next to the checkout (``evals/bench/corpus.py``). Tokens: the
gpt-4o-mini tokenizer (counted in a thread: the bench's own counting stays off the event loop).

Tool definitions: the tokens of the default ``tools/list`` answer (Kite's browser tools only; modules are
offered with ``--module``), as JSON. The shop task: search, open a product, add it to the cart, open the cart
and snapshot it, by refs read from the answers; its total answer tokens vs the same calls each answered with
the aria snapshot of the page (what Playwright MCP answers every action with).

Event-loop lag: how late a 20 ms sleep on the loop the server runs on wakes, over the whole run (the in-process
client and Playwright share that loop): the worst is how long one call held up every other session's calls.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import Client
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from kite_browser.agent.browser.launch import OFFLINE_RESOLVER
from kite_browser.agent.browser.tokens import count_tokens, warm_up
from kite_browser.agent.browser.world import world_of
from kite_browser.agent.config import load_config
from kite_browser.agent.mcp.app import kite_mcp
from kite_browser.agent.mcp.render import DIFF_HEAD
from kite_browser.agent.mcp.server import KiteMCP
from kite_browser.evals.bench.corpus import find_corpus, pages_in
from kite_browser.evals.bench.looplag import LoopLag
from kite_browser.evals.bench.snapshot import pct
from kite_browser.evals.sites import SitesServer
from kite_browser.evals.static import serve

SHARED_PAGES = find_corpus()
SITE_PAGES = [
    "/",
    "/shop/",
    "/shop/?q=mug",
    "/shop/product/sky-blue-espresso-mug",
    "/account/login",
    "/account/register",
    "/forms/",
    "/dynamic/",
    "/frames/",
    "/zh/shop/",
]
CLICKS = [  # (page, role, name) of a click that changes the page
    ("/shop/", "link", "Sky Blue Espresso Mug"),
    ("/shop/", "button", "Search"),
    ("/shop/product/sky-blue-espresso-mug", "button", "Add to cart"),
    ("/account/login", "link", "Register"),
    ("/dynamic/", "button", "Open modal"),
    ("/dynamic/", "button", "Show toast"),
    ("/forms/", "combobox", "Favourite fruit"),
    ("/dynamic/", "button", "Read more"),
    ("/dynamic/", "link", "Open help in a new tab"),
    ("/zh/shop/", "link", "English"),
]

TRUTH_JS = """() => {
  const SEL = 'a[href],button,input:not([type=hidden]),select,textarea,summary,[contenteditable=""],' +
    '[contenteditable=true],[tabindex]:not([tabindex^="-"]),[onclick],[role=button],[role=link],[role=checkbox],' +
    '[role=radio],[role=tab],[role=menuitem],[role=option],[role=switch],[role=textbox],[role=combobox],[role=slider]';
  const all = [];
  const walk = (root) => { for (const el of root.querySelectorAll('*')) {
    if (el.matches(SEL)) all.push(el); if (el.shadowRoot) walk(el.shadowRoot); } };
  walk(document);
  const hidden = (el) => { for (let n = el; n; n = n.parentElement || (n.getRootNode() && n.getRootNode().host) || null)
    if (n.getAttribute && (n.getAttribute('aria-hidden') === 'true' || n.hasAttribute('inert'))) return true;
    return false; };
  const vw = innerWidth, vh = innerHeight, out = [];
  for (const el of all) {
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) continue;
    if (!el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true}) || hidden(el)) continue;
    const x0 = Math.max(r.left, 0), x1 = Math.min(r.right, vw), y0 = Math.max(r.top, 0), y1 = Math.min(r.bottom, vh);
    if (x1 - x0 < 1 || y1 - y0 < 1) continue;
    const hit = el.getRootNode().elementFromPoint((x0 + x1) / 2, (y0 + y1) / 2);
    if (!hit || !(hit === el || el.contains(hit))) continue;
    out.push(window.__kiteExtractor.idOf(el));
  }
  return {token: window.__kiteExtractor.token, ids: out};
}"""


async def _tokens(text: str) -> int:
    return await asyncio.to_thread(count_tokens, text)


def _text(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


async def _aria(page: Page) -> int | None:
    try:
        return await _tokens(await page.locator("body").aria_snapshot(timeout=20000))
    except PlaywrightError:
        return None


async def _recall(kite: KiteMCP, page: Page, text: str) -> tuple[int, int]:
    """(visible interactive elements in the main frame, how many of them the answer lists as [N])."""
    try:
        truth = await world_of(page).call(page.main_frame, TRUTH_JS)  # where the extractor runs
    except PlaywrightError:
        return 0, 0
    by_key = kite.hub.clients["shared"].env.snapshotter._state(page).by_key
    listed = {int(n) for refs in re.findall(r"^\[([\d,]+)\]", text, re.M) for n in refs.split(",")}
    hits = sum(1 for local in truth["ids"] if by_key.get((truth["token"], local)) in listed)
    return len(truth["ids"]), hits


async def measure_snapshot(c: Client, kite: KiteMCP, url: str, label: str) -> dict[str, Any]:
    nav = await c.call_tool("navigate", {"url": url})
    if nav.is_error:
        return {"page": label, "error": _text(nav)[:120]}
    answer = _text(await c.call_tool("snapshot", {}))
    page = kite.hub.clients["shared"].ctx.page
    truth, hits = await _recall(kite, page, answer)
    return {
        "page": label,
        "kind": "snapshot",
        "tokens": await _tokens(answer),
        "aria_tokens": await _aria(page),
        "truth": truth,
        "listed": hits,
    }


async def measure_click(
    c: Client, kite: KiteMCP, base: str, path: str, role: str, name: str
) -> dict[str, Any]:
    label = f'click {role} "{name}" on {path}'
    shown = _text(await c.call_tool("navigate", {"url": base + path}))
    pattern = rf"^\[(\d+)(?:,\d+)*\] {re.escape(role)} \"?{re.escape(name)}"
    m = re.search(pattern, shown, re.M)
    if not m:
        shown = _text(await c.call_tool("snapshot", {"visible_only": False}))
        m = re.search(pattern, shown, re.M)
    if not m:
        return {"page": label, "error": "element not found"}
    answer = await c.call_tool("click", {"ref": int(m.group(1))})
    text = _text(answer)
    page = kite.hub.clients["shared"].ctx.page
    return {
        "page": label,
        "kind": "click",
        "tokens": await _tokens(text),
        "aria_tokens": await _aria(page),
        "changed": "\nPage: " in text or DIFF_HEAD in text,
        "diff": DIFF_HEAD in text,
    }


async def measure_definitions(c: Client) -> dict[str, Any]:
    tools = (await c.list_tools()).tools
    text = json.dumps([t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools])
    return {"tools_count": len(tools), "tools_tokens": await _tokens(text)}


def _ref(text: str, role: str, name: str) -> int:
    m = re.search(rf"^\[(\d+)(?:,\d+)*\] {re.escape(role)} \"?{re.escape(name)}", text, re.M)
    if m is None:
        raise LookupError(f"no {role} {name!r} in the answer")
    return int(m.group(1))


async def measure_shop_task(c: Client, kite: KiteMCP, base: str) -> dict[str, Any]:
    """The shop task's calls; each answer's tokens and the aria snapshot's of the page it left."""
    calls: list[tuple[str, dict[str, Any]]] = []
    kite_tokens = aria_tokens = 0

    async def call(name: str, args: dict[str, Any]) -> str:
        nonlocal kite_tokens, aria_tokens
        answer = _text(await c.call_tool(name, args))
        calls.append((name, args))
        kite_tokens += await _tokens(answer)
        aria_tokens += await _aria(kite.hub.clients["shared"].ctx.page) or 0
        return answer

    home = await call("navigate", {"url": base + "/shop/"})
    await call("type", {"ref": _ref(home, "input", "Search"), "text": "blue mug"})
    results = await call("click", {"ref": _ref(home, "button", "Search")})
    page = await call("click", {"ref": _ref(results, "link", "Sky Blue Espresso Mug")})
    added = await call("click", {"ref": _ref(page, "button", "Add to cart")})
    await call("click", {"ref": _ref(added, "link", "View cart")})
    await call("snapshot", {})
    return {"shop_calls_count": len(calls), "shop_tokens": kite_tokens, "shop_aria_tokens": aria_tokens}


async def run(dirs: list[Path], sites: bool) -> tuple[list[dict[str, Any]], dict[str, float]]:
    warm_up()
    config = load_config(
        overrides={
            "browser.headless": True,
            "browser.args": [OFFLINE_RESOLVER],
            "mcp.runs_dir": str(Path("/tmp") / "kite-bench-mcp"),
        },
        env={},
    )
    rows: list[dict[str, Any]] = []
    lag = LoopLag()
    extra: dict[str, Any] = {}
    async with kite_mcp(config) as kite, Client(kite.server, mode="legacy") as c, lag:
        extra.update(await measure_definitions(c))
        if sites:
            with SitesServer() as srv:
                base = srv.base_url
                extra.update(await measure_shop_task(c, kite, base))
                for path in SITE_PAGES:
                    rows.append(await measure_snapshot(c, kite, base + path, f"sites{path}"))
                for path, role, name in CLICKS:
                    rows.append(await measure_click(c, kite, base, path, role, name))
                print("measured the bundled sites", file=sys.stderr, flush=True)
        for root in dirs:
            with serve(root) as base:
                for rel in pages_in(root):
                    rows.append(await measure_snapshot(c, kite, f"{base}/{rel}", f"{root.name}/{rel}"))
                    print(f"measured {rel}", file=sys.stderr, flush=True)
    return rows, {**lag.summary(), **extra}


def summarise(rows: list[dict[str, Any]], lag: dict[str, float] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"pages_count": sum(1 for r in rows if r.get("kind") == "snapshot"), **(lag or {})}
    for kind in ("snapshot", "click"):
        ok = [r for r in rows if r.get("kind") == kind and r.get("aria_tokens")]
        ratios = [r["tokens"] / r["aria_tokens"] for r in ok]
        out[f"{kind}_tokens_median"] = statistics.median(r["tokens"] for r in ok) if ok else 0
        out[f"{kind}_tokens_p95"] = pct([r["tokens"] for r in ok], 0.95)
        out[f"{kind}_aria_tokens_median"] = statistics.median(r["aria_tokens"] for r in ok) if ok else 0
        out[f"{kind}_aria_tokens_p95"] = pct([r["aria_tokens"] for r in ok], 0.95)
        out[f"{kind}_ratio_median"] = round(statistics.median(ratios), 3) if ratios else 0.0
        out[f"{kind}_ratio_p95"] = round(pct(ratios, 0.95), 3)
    saved = [
        r["tokens"] / r["aria_tokens"]
        for r in rows
        if r.get("kind") == "snapshot" and r.get("aria_tokens") and not r["page"].startswith("sites/")
    ]
    out["saved_pages_snapshot_ratio_median"] = round(statistics.median(saved), 3) if saved else 0.0
    snaps = [r for r in rows if r.get("kind") == "snapshot"]
    truth = sum(r["truth"] for r in snaps)
    out["recall_pct"] = round(100 * sum(r["listed"] for r in snaps) / truth, 2) if truth else 100.0
    out["errors_count"] = sum(1 for r in rows if "error" in r)
    return out


def table(rows: list[dict[str, Any]], s: dict[str, Any]) -> str:
    head = f"{'page':64} {'kite tok':>8} {'aria tok':>8} {'ratio':>6} {'recall':>7}"
    lines = [head, "-" * len(head)]
    for r in rows:
        if "error" in r:
            lines.append(f"{r['page'][:64]:64} error: {r['error']}")
            continue
        aria = r["aria_tokens"]
        ratio = f"{r['tokens'] / aria:.3f}" if aria else "-"
        recall = (
            f"{r['listed']}/{r['truth']}" if r["kind"] == "snapshot" else ("diff" if r["diff"] else "full")
        )
        lines.append(
            f"{r['page'][:64]:64} {r['tokens']:>8} {aria if aria else 'timeout':>8} {ratio:>6} {recall:>7}"
        )
    lines += [
        "-" * len(head),
        f"tool definitions (default tools/list): {s.get('tools_count', 0)} tools, {s.get('tools_tokens', 0)} tokens",
        f"shop task ({s.get('shop_calls_count', 0)} calls): kite {s.get('shop_tokens', 0)} tokens vs "
        f"{s.get('shop_aria_tokens', 0)} with an aria snapshot answering each call",
        f"snapshot: kite median {s['snapshot_tokens_median']} tokens (p95 {s['snapshot_tokens_p95']}) vs aria "
        f"{s['snapshot_aria_tokens_median']} (p95 {s['snapshot_aria_tokens_p95']}); ratio median "
        f"{s['snapshot_ratio_median']}, p95 {s['snapshot_ratio_p95']}",
        f"click:    kite median {s['click_tokens_median']} tokens (p95 {s['click_tokens_p95']}) vs aria "
        f"{s['click_aria_tokens_median']} (p95 {s['click_aria_tokens_p95']}); ratio median "
        f"{s['click_ratio_median']}, p95 {s['click_ratio_p95']}",
        f"snapshot on saved pages only: ratio median {s['saved_pages_snapshot_ratio_median']}",
        f"recall of visible interactive elements in the snapshot answers: {s['recall_pct']}% "
        f"({s['pages_count']} pages, {s['errors_count']} errors)",
        f"event-loop lag over the run: p50 {s.get('loop_lag_p50_ms', 0)} ms, p99 {s.get('loop_lag_p99_ms', 0)} ms, "
        f"max {s.get('loop_lag_max_ms', 0)} ms ({s.get('loop_lag_samples', 0)} samples)",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m kite_browser.evals.bench.mcp_tokens", description=__doc__.split("\n")[0]
    )
    parser.add_argument("dirs", nargs="*", type=Path, metavar="DIR", help="folders of saved pages")
    parser.add_argument("--json", action="store_true", help="print one JSON object of metrics")
    parser.add_argument("--no-sites", action="store_true", help="skip the bundled sites")
    args = parser.parse_args(argv)
    dirs = args.dirs or ([SHARED_PAGES] if SHARED_PAGES is not None else [])
    rows, lag = asyncio.run(run(dirs, not args.no_sites))
    summary = summarise(rows, lag)
    print(json.dumps(summary) if args.json else table(rows, summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
