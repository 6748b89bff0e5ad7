"""Frames (same-origin, cross-site out-of-process, nested, hidden) and open shadow roots share one index space."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page

from kite_browser.agent.browser.render import render_observation
from kite_browser.agent.browser.snapshot import Snapshotter
from tests.browser.pages.server import serve

# one Chromium with site isolation (a module fixture) for the file, on one xdist worker
pytestmark = pytest.mark.xdist_group("snapshot_frames")

# 127.0.0.2 is another site: Chromium runs its frames in another renderer process.
RESOLVER = "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE 127.0.0.2"


@pytest.fixture(scope="module")
def urls() -> Iterator[list[str]]:
    with serve() as found:
        yield found


@pytest_asyncio.fixture(scope="module")
async def two_site_browser(pw_browser: Browser, chromium_path: str | None) -> AsyncIterator[Browser]:
    browser = await pw_browser.browser_type.launch(
        executable_path=chromium_path, headless=True, args=[RESOLVER]
    )
    yield browser
    await browser.close()


@pytest_asyncio.fixture
async def two_site_page(two_site_browser: Browser) -> AsyncIterator[Page]:
    ctx = await two_site_browser.new_context(viewport={"width": 1280, "height": 800})
    yield await ctx.new_page()
    await ctx.close()


async def test_frames_share_index_space_and_top_coordinates(two_site_page: Page, urls: list[str]) -> None:
    page = two_site_page
    await page.goto(f"{urls[0]}/frames.html?cross={urls[1]}", wait_until="load")
    await page.frame_locator("#cross").locator("#inner-btn").wait_for()
    snap = Snapshotter()
    obs = await snap.snapshot(page)
    assert not obs.summary.warnings
    inner = {e.frame: e for e in obs.elements if e.attrs.get("id") == "inner-btn"}
    assert set(inner) == {"0", "1"}  # the hidden third iframe is left out
    nested = {e.frame for e in obs.elements if e.name == "Nested frame button"}
    assert nested == {"0.0", "1.0"}
    indexes = [e.index for e in obs.elements]
    assert len(indexes) == len(set(indexes))
    # rects are top-level viewport coordinates (through the iframe's border 5 + padding 3)
    for frame_id, path in (("same", "0"), ("cross", "1")):
        frame_box = await page.locator(f"#{frame_id}").bounding_box()
        assert frame_box is not None
        rect = inner[path].rect
        assert rect.x >= frame_box["x"] + 8 and rect.y >= frame_box["y"] + 8
        # a real mouse click at the reported centre lands on the button inside the frame
        await page.mouse.click(*rect.center)
        assert await page.frame_locator(f"#{frame_id}").locator("#inner-btn").text_content() == "Clicked"
    cross = inner["1"]
    resolved = await snap.resolve(page, cross.index)
    assert resolved.frame.url.startswith(urls[1]) and await resolved.handle.get_attribute("id") == "inner-btn"
    again = await snap.snapshot(page)
    assert {e.index for e in again.elements} == set(indexes) and not any(e.is_new for e in again.elements)
    line = next(x for x in render_observation(again).splitlines() if x.startswith(f"[{cross.index}]"))
    assert line == f'[{cross.index}] button "Clicked" frame=1'


async def test_shadow_roots_deep_and_labelled(page: Page, urls: list[str]) -> None:
    await page.goto(f"{urls[0]}/shadow.html")
    snap = Snapshotter()
    obs = await snap.snapshot(page)
    names = {e.name: e for e in obs.elements}
    assert names["Shadow email"].shadow and names["Shadow email"].type == "email"
    assert "Shadow button" in names and "Deepest button" in names  # 60 nested shadow roots
    resolved = await snap.resolve(page, names["Deepest button"].index)
    assert await resolved.handle.get_attribute("id") == "deepest"
    [det] = await snap.details(page, [names["Shadow button"].index])
    assert " >> " in det.selector
    assert await page.locator(det.selector).text_content() == "Shadow button"
