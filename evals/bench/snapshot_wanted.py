"""What the agent's task words cost the snapshot: a viewport snapshot with and without ``wanted`` (the words
whose elements below the fold are listed too, ``agent/policies/recap.py`` ``sought``), side by side on the same pages
in the same run, alternating.

    python -m kite_browser.evals.bench.snapshot_wanted [--repeat N] [--words w1,w2,...] [DIR ...]

Each DIR is a folder of saved pages (default: ``evals/bench/pages``; the saved real pages of
``../shared/pages`` are the ones to add). Prints per page the median snapshot time of each and the elements
listed, then the median ratio and the summed times.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from pathlib import Path

from kite_browser.agent.browser.chromium import require_chromium
from kite_browser.agent.browser.driver import playwright_driver
from kite_browser.agent.browser.snapshot import Snapshotter
from kite_browser.evals.bench.corpus import OFFLINE, pages_in
from kite_browser.evals.static import serve

PAGES = Path(__file__).parent / "pages"
WORDS = "subscribe,newsletter,search,price,comments,share,login,contact"
"""Words of the kind tasks name (a form's button, a price, a link), some of them common on any page."""


async def run(dirs: list[Path], words: list[str], repeat: int) -> list[tuple[str, float, float, int, int]]:
    rows: list[tuple[str, float, float, int, int]] = []
    async with playwright_driver() as pw:
        browser = await pw.chromium.launch(executable_path=require_chromium(), args=[OFFLINE])
        for root in dirs:
            with serve(root) as base:
                for rel in pages_in(root):
                    page = await browser.new_page(viewport={"width": 1280, "height": 800})
                    try:
                        await page.goto(f"{base}/{rel}", wait_until="load", timeout=15000)
                    except Exception:  # a saved page that never finishes loading is measured as it is
                        pass
                    snap = Snapshotter()
                    await snap.snapshot(page)  # warm
                    times: dict[bool, list[float]] = {False: [], True: []}
                    listed: dict[bool, int] = {}
                    for _ in range(repeat):
                        for with_words in (False, True):
                            t0 = time.perf_counter()
                            obs = await snap.snapshot(page, wanted=words if with_words else ())
                            times[with_words].append((time.perf_counter() - t0) * 1000)
                            listed[with_words] = len(obs.elements)
                    await page.close()
                    a, b = statistics.median(times[False]), statistics.median(times[True])
                    rows.append((f"{root.name}/{rel}", a, b, listed[False], listed[True]))
        await browser.close()
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="*", type=Path, default=[PAGES])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--words", default=WORDS)
    args = ap.parse_args()
    rows = asyncio.run(run(args.dirs, [w for w in args.words.split(",") if w], args.repeat))
    for name, a, b, na, nb in rows:
        print(f"{name[:48]:48} {a:8.1f} ms {b:8.1f} ms  x{b / a:.2f}  elements {na} -> {nb}")
    if rows:
        ratio = statistics.median(b / a for _, a, b, _, _ in rows)
        print(
            f"pages {len(rows)}  median ratio {ratio:.2f}  "
            f"sum without {sum(r[1] for r in rows):.0f} ms  with {sum(r[2] for r in rows):.0f} ms"
        )


if __name__ == "__main__":
    main()
