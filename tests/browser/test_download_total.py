"""The run's total download cap (``browser.max_download_total_mb``): a page that starts many downloads on its
own, each under the per-file cap, keeps no more than the total; the download that passes it is stopped and
reported (``download_total_too_large``)."""

from __future__ import annotations

import asyncio
import time

import pytest

from kite_browser.agent.browser.context import ContextSession
from tests.fixtures.browser import PagesServer

pytestmark = pytest.mark.slow


def _page(hrefs: list[str]) -> str:
    links = "".join(f"<a class=f href='{h}' download>f</a>" for h in hrefs)
    return f"<!doctype html><title>Files</title>{links}<script>for (const a of document.querySelectorAll('a.f')) a.click();</script>"


async def _settled(ctx: ContextSession, want: int, timeout_s: float = 60.0) -> tuple[list[str], list]:
    """Every download of the page saved or stopped (``want`` of them), as the context reports them."""
    saved: list[str] = []
    notices: list = []
    deadline = time.monotonic() + timeout_s
    while len(saved) + len(notices) < want and time.monotonic() < deadline:
        await ctx.wait_for_downloads()
        events = ctx.drain_events()
        saved += events.downloads
        notices += events.download_notices
        if len(saved) + len(notices) < want:
            await asyncio.sleep(0.2)  # polling the context's own report: the page starts them at its pace
    return saved, notices


@pytest.mark.parametrize("announced", [True, False], ids=["announced", "unannounced"])
async def test_many_downloads_under_the_file_cap_stop_at_the_run_total(
    ctx_session: ContextSession, pages_server: PagesServer, tmp_path, announced: bool
) -> None:
    ctx_session.max_download_mb = 5
    ctx_session.max_download_total_mb = 5
    hrefs = [
        pages_server.add_download(f"/total-{announced}/f{i}.bin", 2, announced=announced) for i in range(4)
    ]
    url = pages_server.add(f"/total-{announced}.html", _page(hrefs))
    await ctx_session.page.goto(url)
    saved, notices = await _settled(ctx_session, 4)
    kept = sum(p.stat().st_size for p in (tmp_path / "downloads").glob("*.bin"))
    assert kept <= 5 * 1024 * 1024, (saved, notices)
    assert 1 <= len(saved) <= 2, saved
    assert notices and {n.type for n in notices} == {"download_total_too_large"}, notices
    assert all(n.cap_mb == 5 and "browser.max_download_total_mb" in n.message for n in notices)
