"""``kite snapshot URL [URL ...]``: print what the model would see for each page (one browser for all).

Two layouts, as the model meets them: without ``--all``, the page as each step shows it (the viewport in
reading order, text with every element in its place, and "N more below (kite snapshot --all lists them)");
with ``--all``, every element of the page, in the viewport or not, as the one-line-per-element list the
``getElements`` action returns (no text between them: off-screen there is no reading order to keep).

Without ``--json`` prints the LLM text; with ``--json`` one JSON object per line per URL:
``{"url", "summary", "elements", "text", "tokens", "timings": {"extract_ms"}}`` where ``extract_ms`` covers
everything from the page being loaded to the text being ready (extraction, rendering, token count).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit
from urllib.request import url2pathname

from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.commands._agent_opts import positive_int
from kite_browser.agent.commands._browser_opts import parse_viewport
from kite_browser.agent.config import KiteConfig, load_config

if TYPE_CHECKING:  # Playwright and the engine load in run(): every other kite command starts without them
    from playwright.async_api import Page

    from kite_browser.agent.browser.snapshot import Snapshotter


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "snapshot",
        help="print the page representation the model sees (summary + element list) for URLs",
        description="Open each URL in one headless browser and print the observation text (or JSON).",
    )
    p.add_argument("urls", nargs="+", metavar="URL", help="http(s) URL or a local HTML file")
    p.add_argument(
        "--all",
        action="store_true",
        help="every element of the page, also outside the viewport, as the element list getElements returns "
        "(without it: the viewport in reading order, as the model sees each step)",
    )
    p.add_argument("--json", action="store_true", help="one JSON object per URL per line")
    p.add_argument("--viewport", type=parse_viewport, metavar="WxH", help="viewport (default 1280x800)")
    p.add_argument(
        "--browser-arg",
        action="append",
        dest="browser_args",
        default=[],
        metavar="ARG",
        help="an extra Chromium flag (repeatable), e.g. --browser-arg=--lang=de",
    )
    p.add_argument("--budget", type=positive_int, metavar="TOKENS", help="token budget of the element list")
    p.set_defaults(func=run)


ALL_HEADING = (
    "Every interactive element, in the viewport or not (the list getElements returns; without --all: the "
    "viewport in reading order, as each step shows it):"
)
SCHEMES = ("http", "https", "file", "about", "data")
BROWSER_SCHEMES = frozenset(
    {
        "javascript",
        "vbscript",
        "blob",
        "view-source",
        "chrome",
        "chrome-extension",
        "chrome-untrusted",
        "devtools",
        "filesystem",
        "mailto",
        "tel",
        "ws",
        "wss",
        "ftp",
        "intent",
    }
)
"""Schemes a browser knows: ``javascript:1`` is that URL, never the host ``javascript`` on port 1."""
FILE_SUFFIXES = (".html", ".htm", ".xhtml", ".mhtml", ".svg", ".xml", ".txt", ".pdf", ".json")


def _looks_like_path(text: str) -> bool:
    """``page.html``, ``./x``, ``/tmp/x``, ``~/x``, ``docs/x``: a file, not a host (``example.com/x``)."""
    if text.startswith((".", "/", "~")):
        return True
    first, slash, _ = text.partition("/")
    if slash:
        return "." not in first and ":" not in first and first != "localhost"
    return text.lower().endswith(FILE_SUFFIXES)


def _target(url: str) -> str:
    """The URL to open for an argument; a UsageError for a missing file or an unsupported scheme."""
    text = url.strip()
    if not text:  # else the empty path is the working folder, opened as its file listing
        raise UsageError("an empty URL: give an http(s) URL or a local HTML file")
    scheme = urlsplit(text).scheme.lower() if ":" in text else ""
    if "://" in text or scheme in ("about", "data") or scheme in BROWSER_SCHEMES:
        if scheme not in SCHEMES:
            raise UsageError(
                f"{url!r}: '{scheme}:' URLs are not supported; use http(s), file or a local path"
            )
        if scheme == "file" and not Path(url2pathname(urlsplit(text).path)).exists():
            raise UsageError(f"{url!r}: no such file")
        return text
    path = Path(text).expanduser()
    if path.exists():
        return path.resolve().as_uri()
    if _looks_like_path(text):
        raise UsageError(f"{url!r}: no such file")
    return "http://" + text


def _config(args: argparse.Namespace, targets: list[str]) -> KiteConfig:
    overrides: dict[str, object] = {"browser.headless": True}
    if args.viewport:
        overrides["browser.viewport_width"], overrides["browser.viewport_height"] = args.viewport
    if args.browser_args:
        overrides["browser.args"] = list(args.browser_args)
    if any(t.startswith("file:") for t in targets):
        overrides["browser.allow_file_urls"] = True
    return load_config(getattr(args, "config", None), overrides=overrides)


async def _one(
    page: Page, url: str, snap: Snapshotter, args: argparse.Namespace, budget: int
) -> dict[str, Any]:
    from playwright.async_api import Error as PlaywrightError

    from kite_browser.agent.browser.render import LIST_HEADING, render_observation
    from kite_browser.agent.browser.tokens import count_tokens

    warning = None
    try:
        await page.goto(url, wait_until="load")
    except PlaywrightError as exc:
        first = str(exc).splitlines()[0]
        if "Timeout" not in first:
            return {"url": url, "error": {"error": "navigation_failed", "message": first}}
        warning = "the page did not finish loading; snapshot taken anyway"
    t0 = time.perf_counter()
    obs = await snap.snapshot(page, include_all=args.all)
    if warning:
        obs.summary.warnings.append(warning)
    text = render_observation(
        obs,
        budget_tokens=budget,
        include_offscreen=args.all,
        more_hint="kite snapshot --all lists them",
        list_heading=ALL_HEADING if args.all else LIST_HEADING,
    )
    tokens = count_tokens(text)
    extract_ms = round((time.perf_counter() - t0) * 1000, 2)
    return {
        "url": url,
        "summary": obs.summary.model_dump(),
        "elements": [e.model_dump() for e in obs.elements],
        "text": text,
        "tokens": tokens,
        "timings": {"extract_ms": extract_ms},
    }


async def run(args: argparse.Namespace) -> int:
    from kite_browser.agent.browser.pool import BrowserPool
    from kite_browser.agent.browser.snapshot import Snapshotter
    from kite_browser.agent.browser.tokens import warm_up

    targets = [_target(u) for u in args.urls]  # bad input fails before the browser starts
    cfg = _config(args, targets)
    budget = args.budget or cfg.snapshot.token_budget
    snap = Snapshotter(cfg.snapshot)
    warm_up()
    failed = 0
    async with BrowserPool(cfg.browser) as pool:
        ctx = await pool.context(default=True)
        for n, url in enumerate(targets):
            page = ctx.page if n == 0 else await ctx.open_tab()
            result = await _one(page, url, snap, args, budget)
            failed += "error" in result
            if args.json:
                print(json.dumps(result, ensure_ascii=False), flush=True)
            elif "error" in result:
                print(f"kite: {result['url']}: {result['error']['message']}", file=sys.stderr)
            else:
                if len(args.urls) > 1:
                    print(
                        f"=== {result['url']} ({result['tokens']} tokens, {result['timings']['extract_ms']} ms)"
                    )
                print(result["text"], flush=True)
    return 1 if failed else 0
