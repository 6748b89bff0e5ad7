"""What a new document's warm-up costs and saves: Kite's extractor with and without it, same pages, same run.

    python -m kite_browser.evals.bench.warm_up [--pages N] [DIR]

The script Kite registers for a page's new documents (``ExtractorScript.boot``) runs one extraction in Kite's
world once the document is parsed and the renderer idle, so the first capture finds the extractor compiled.
Per page, alternating which goes first, each in a fresh context: a tab on the served folder is observed once,
then navigated to the page; timed are the load (navigation to ``load``), the first capture after it, and the
renderer main thread's CPU over both (Chromium's ThreadTime: what the page pays for the warm-up, whether or
not a user waits for it). Pages: the ``shared/pages`` corpus, or DIR.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

from playwright.async_api import Browser

from kite_browser.agent.browser.chromium import require_chromium
from kite_browser.agent.browser.driver import playwright_driver
from kite_browser.agent.browser.extractor_call import EXTRACTOR, ExtractorScript
from kite_browser.agent.browser.snapshot import Snapshotter
from kite_browser.evals.bench.corpus import OFFLINE, find_corpus, pages_in
from kite_browser.evals.bench.snapshot_ab import thread_ms
from kite_browser.evals.static import serve


class _Unwarmed(ExtractorScript):
    """Kite's extractor registered for new documents without the warm-up."""

    @property
    def boot(self) -> str:
        return f"(() => {{ try {{ ({self.install})({{fn: 'token'}}); }} catch (e) {{}} }})()"


SIDES: dict[str, ExtractorScript] = {
    "warm-up": EXTRACTOR,
    "none": _Unwarmed(EXTRACTOR.source, EXTRACTOR.key, EXTRACTOR.version, EXTRACTOR.stub, EXTRACTOR.install),
}


async def _once(browser: Browser, base: str, rel: str, script: ExtractorScript) -> dict[str, float]:
    ctx = await browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        snap = Snapshotter(script=script)
        page = await ctx.new_page()
        await page.goto(f"{base}/")  # same origin as the page: the navigation stays in this renderer
        await snap.snapshot(page)
        cdp = await ctx.new_cdp_session(page)
        await cdp.send("Performance.enable")
        cpu0, t0 = await thread_ms(cdp), time.perf_counter()
        try:
            await page.goto(f"{base}/{rel}", wait_until="load", timeout=15000)
        except Exception:  # a saved page that never finishes loading is measured as it is
            pass
        t1 = time.perf_counter()
        await snap.snapshot(page)
        t2 = time.perf_counter()
        cpu = await thread_ms(cdp) - cpu0
        return {"load_ms": (t1 - t0) * 1000, "cold_ms": (t2 - t1) * 1000, "cpu_ms": cpu}
    finally:
        await ctx.close()


async def run(root: Path, limit: int | None) -> dict[str, dict[str, list[float]]]:
    out: dict[str, dict[str, list[float]]] = {name: {} for name in SIDES}
    async with playwright_driver() as pw:
        browser = await pw.chromium.launch(executable_path=require_chromium(), headless=True, args=[OFFLINE])
        with serve(root) as base:
            for i, rel in enumerate(pages_in(root)[:limit]):
                names = list(SIDES)[:: -1 if i % 2 else 1]
                for name in names:
                    for key, value in (await _once(browser, base, rel, SIDES[name])).items():
                        out[name].setdefault(key, []).append(value)
                print(f"measured {rel}", file=sys.stderr, flush=True)
        await browser.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m kite_browser.evals.bench.warm_up", description=__doc__.split("\n")[0]
    )
    parser.add_argument("dir", nargs="?", type=Path, metavar="DIR", help="a folder of saved pages")
    parser.add_argument("--pages", type=int, default=None, help="only the first N pages")
    args = parser.parse_args(argv)
    root = args.dir or find_corpus()
    if root is None or not root.is_dir():
        print(f"not a folder of saved pages: {root or 'shared/pages (not found)'}", file=sys.stderr)
        return 2
    res = asyncio.run(run(root, args.pages))
    for name, metrics in res.items():
        cells = ", ".join(f"{k} {statistics.median(v):.1f}" for k, v in metrics.items())
        print(f"{name}: median over {len(metrics.get('cpu_ms', []))} pages: {cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
