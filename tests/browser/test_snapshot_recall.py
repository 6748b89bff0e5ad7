"""Recall against a hit-test ground truth on the bundled sites and the saved-page corpus (>= 98%), and
precision: no listed element is invisible or covered.

The ground truth is computed independently of extractor.js: every element matching a plain interactive
selector (native controls, links, ARIA widget roles, contenteditable, tabindex >= 0, inline handlers), in the
document and open shadow roots, that is rendered (checkVisibility), not aria-hidden / inert, in the viewport,
and whose centre hit-tests to itself.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Frame, Page

from agent.browser.snapshot import Snapshotter
from evals.bench.corpus import corpus_missing_message, find_corpus
from evals.sites import SitesServer

TRUTH_JS = """() => {
  const SEL = 'a[href],button,input:not([type=hidden]),select,textarea,summary,[contenteditable=""],' +
    '[contenteditable=true],[tabindex]:not([tabindex^="-"]),[onclick],[role=button],[role=link],[role=checkbox],' +
    '[role=radio],[role=tab],[role=menuitem],[role=option],[role=switch],[role=textbox],[role=combobox],[role=slider]';
  const all = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.matches(SEL)) all.push(el);
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(document);
  const hiddenByAria = (el) => {
    for (let n = el; n; n = n.parentElement || (n.getRootNode() && n.getRootNode().host) || null) {
      if (n.getAttribute && (n.getAttribute('aria-hidden') === 'true' || n.hasAttribute('inert'))) return true;
    }
    return false;
  };
  const vw = innerWidth, vh = innerHeight, out = [];
  for (const el of all) {
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) continue;
    if (!el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true}) || hiddenByAria(el)) continue;
    const x0 = Math.max(r.left, 0), x1 = Math.min(r.right, vw), y0 = Math.max(r.top, 0), y1 = Math.min(r.bottom, vh);
    if (x1 - x0 < 1 || y1 - y0 < 1) continue;
    const hit = el.getRootNode().elementFromPoint((x0 + x1) / 2, (y0 + y1) / 2);
    if (!hit || !(hit === el || el.contains(hit))) continue;
    out.push([window.__kiteExtractor.idOf(el), el.outerHTML.slice(0, 100)]);
  }
  return {token: window.__kiteExtractor.token, found: out};
}"""

CHECK_JS = """(ids) => ids.map((id) => {
  const el = window.__kiteExtractor.get(id);
  if (!el || !el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) return false;
  // elementFromPoint answers null from innerWidth - 0.5 / innerHeight - 0.5 on (it rounds)
  const r = el.getBoundingClientRect(), vw = innerWidth - 0.5, vh = innerHeight - 0.5;
  const x0 = Math.max(r.left, 0), x1 = Math.min(r.right, vw), y0 = Math.max(r.top, 0), y1 = Math.min(r.bottom, vh);
  for (const [fx, fy] of [[.5, .5], [.25, .25], [.75, .75], [.25, .75], [.75, .25]]) {
    const hit = el.getRootNode().elementFromPoint(x0 + (x1 - x0) * fx, y0 + (y1 - y0) * fy);
    if (hit && (hit === el || el.contains(hit) || (hit.tagName === 'LABEL' && hit.control === el))) return true;
  }
  return false;
})"""


async def _frame_fully_in_view(frame: Frame, page: Page) -> bool:
    if frame is page.main_frame:
        return True
    try:
        box = await (await frame.frame_element()).bounding_box()
    except Exception:
        return False
    vp = page.viewport_size or {"width": 1280, "height": 800}
    return (
        bool(box)
        and box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= vp["width"]
        and box["y"] + box["height"] <= vp["height"]
    )


async def check_page(page: Page, snap: Snapshotter) -> tuple[int, list[str], list[int]]:
    """(ground-truth size, truth elements missing from the snapshot, listed indexes that are not visible)."""
    obs = await snap.snapshot(page)
    by_index = snap._state(page).by_index
    listed = {(by_index[e.index][1], by_index[e.index][2]) for e in obs.elements if e.in_viewport}
    truth, missing = 0, []
    for frame in page.frames:
        if (
            frame.is_detached()
            or frame.url.startswith("chrome-error:")
            or not await _frame_fully_in_view(frame, page)
        ):
            continue
        try:
            res = await frame.evaluate(TRUTH_JS)
        except Exception:  # a frame without the extractor (hidden, detached) has no listed elements to check
            continue
        for local, html in res["found"]:
            truth += 1
            if (res["token"], local) not in listed:
                missing.append(html)
    bad: list[int] = []
    for e in obs.elements:
        frame, _, local = by_index[e.index]
        if not e.in_viewport or frame.is_detached():
            continue
        try:
            ok = (await frame.evaluate(CHECK_JS, [local]))[0]
        except Exception as exc:  # the frame went away since the snapshot (detach-iframe page)
            assert "detached" in str(exc) or "destroyed" in str(exc), exc
            continue
        if not ok:
            bad.append(e.index)
    return truth, missing, bad


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
    *(
        f"/test/{p.name}"
        for p in sorted((Path(__file__).parents[2] / "evals/sites/static/test").glob("*.html"))
    ),
]


async def _recall_over(page: Page, urls: list[str]) -> None:
    snap = Snapshotter()
    total, missed, problems = 0, [], []
    for url in urls:
        try:
            await page.goto(url, wait_until="load", timeout=8000)
        except Exception:
            pass  # pages that never finish loading are snapshotted as they are
        truth, missing, bad = await check_page(page, snap)
        total += truth
        missed += [f"{url}: {m}" for m in missing]
        problems += [f"{url}: [{i}]" for i in bad]
    assert total > 50
    recall = 1 - len(missed) / total
    assert recall >= 0.98, f"recall {recall:.3f}; missing: {missed[:10]}"
    assert not problems, f"listed but invisible or covered: {problems}"


async def test_recall_on_bundled_sites(page: Page, sites: SitesServer) -> None:
    await _recall_over(page, [sites.url(p) for p in SITE_PATHS])


CORPUS = find_corpus()
CORPUS_PAGES = [
    "readability__wikipedia-3",
    "readability__aktualne",
    "readability__medium-2",
    "readability__yahoo-4",
    "formasaurus__www.boston.com-3",
    "formasaurus__www.kupongkode.com-0",
    "formasaurus__www.pcgames.de-0",
    "formasaurus__www.nieuwsblad.be-2",
    "formasaurus__entremuslims.fr-1",
    "readability__links-in-tables",
]


@pytest.mark.slow
async def test_recall_on_saved_corpus(page: Page) -> None:
    from evals.bench.snapshot import serve

    if CORPUS is None:
        pytest.skip(corpus_missing_message())
    with serve(CORPUS) as base:
        await _recall_over(page, [f"{base}/{name}/index.html" for name in CORPUS_PAGES])
