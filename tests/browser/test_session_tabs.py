"""ContextSession tabs: list, open, switch, close, and tabs the page opens itself."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser

from kite_browser.agent.browser.session import ContextSession, NoOpenTabError, TabNotFoundError
from tests.browser.action_pages.harness import make_kite
from tests.fixtures.browser import PagesServer


@pytest.fixture(scope="module")
def tab_pages(pages_server: PagesServer) -> dict[str, str]:
    return {
        "a": pages_server.add("/tabs/a", "<title>Page A</title><h1>A</h1>"),
        "b": pages_server.add("/tabs/b", "<title>Page B</title><h1>B</h1>"),
        "form": pages_server.add("/tabs/form", '<title>Form</title><input id="field" aria-label="Field">'),
        "opener": pages_server.add(
            "/tabs/opener",
            """<title>Opener</title>
            <a id="blank" href="/tabs/b" target="_blank">new tab</a>
            <button id="win" onclick="window.open('/tabs/a')">window.open</button>""",
        ),
    }


async def test_open_switch_close(ctx_session: ContextSession, tab_pages: dict[str, str]) -> None:
    first = ctx_session.page
    await first.goto(tab_pages["a"])
    second = await ctx_session.open_tab(tab_pages["b"])
    assert ctx_session.page is second
    tabs = await ctx_session.tabs()
    assert [(t.index, t.title, t.active) for t in tabs] == [(0, "Page A", False), (1, "Page B", True)]
    assert tabs[1].url == tab_pages["b"]

    assert await ctx_session.switch_tab(0) is first
    assert ctx_session.page is first
    assert await first.evaluate("document.visibilityState") == "visible"
    assert await ctx_session.switch_tab(url="/tabs/b") is second  # substring match
    assert await ctx_session.switch_tab(url=tab_pages["a"]) is first  # exact match

    await ctx_session.close_tab(0)
    assert ctx_session.page is second  # the most recently active tab that is still open
    assert [t.title for t in await ctx_session.tabs()] == ["Page B"]
    # Kite's own tabs are not reported as opened by the page.
    assert ctx_session.drain_events().new_tabs == []


async def test_tab_not_found_is_typed(ctx_session: ContextSession, tab_pages: dict[str, str]) -> None:
    await ctx_session.page.goto(tab_pages["a"])
    with pytest.raises(TabNotFoundError) as err:
        await ctx_session.switch_tab(5)
    data = err.value.to_dict()
    assert data["error"] == "tab_not_found"
    assert data["tabs"] == [{"index": 0, "url": tab_pages["a"]}]
    with pytest.raises(TabNotFoundError):
        await ctx_session.switch_tab(url="/nowhere")
    with pytest.raises(TabNotFoundError):
        await ctx_session.switch_tab()
    with pytest.raises(TabNotFoundError):
        await ctx_session.close_tab(-1)


async def test_tabs_opened_by_the_page_are_tracked(
    ctx_session: ContextSession, tab_pages: dict[str, str]
) -> None:
    page = ctx_session.page
    await page.goto(tab_pages["opener"])
    async with ctx_session.context.expect_page() as popup_info:
        await page.click("#blank")
    popup = await popup_info.value
    await popup.wait_for_load_state("domcontentloaded")
    async with ctx_session.context.expect_page() as win_info:
        await page.click("#win")
    win = await win_info.value
    await win.wait_for_load_state("domcontentloaded")

    events = ctx_session.drain_events()
    assert events.new_tabs == [tab_pages["b"], tab_pages["a"]]
    assert ctx_session.drain_events().new_tabs == []  # drained
    assert ctx_session.page is page  # reported, not followed (follow_new_tabs is off)
    tabs = await ctx_session.tabs()
    assert [t.url for t in tabs] == [tab_pages["opener"], tab_pages["b"], tab_pages["a"]]
    assert await ctx_session.switch_tab(1) is popup


async def test_follow_new_tabs(ctx_session: ContextSession, tab_pages: dict[str, str]) -> None:
    ctx_session.follow_new_tabs = True
    await ctx_session.page.goto(tab_pages["opener"])
    async with ctx_session.context.expect_page() as info:
        await ctx_session.page.click("#blank")
    assert ctx_session.page is await info.value


async def test_page_closing_itself_falls_back(ctx_session: ContextSession, tab_pages: dict[str, str]) -> None:
    first = ctx_session.page
    await first.goto(tab_pages["opener"])
    async with ctx_session.context.expect_page() as info:
        await first.click("#win")  # only script-opened windows may close themselves
    popup = await info.value
    assert await ctx_session.switch_tab(1) is popup
    async with popup.expect_event("close"):
        await popup.evaluate("setTimeout(() => window.close(), 0)")
    assert ctx_session.page is first
    assert len(await ctx_session.tabs()) == 1


async def test_all_tabs_closed_is_typed(ctx_session: ContextSession) -> None:
    await ctx_session.close_tab(0)
    with pytest.raises(NoOpenTabError) as err:
        _ = ctx_session.page
    assert err.value.to_dict()["error"] == "no_open_tab"
    page = await ctx_session.open_tab()
    assert ctx_session.page is page


FRAMES_JS = """() => new Promise((done) => {
  const t0 = performance.now(); let frames = 0;
  const tick = () => { frames++; if (frames < 6) requestAnimationFrame(tick); else done(performance.now() - t0); };
  requestAnimationFrame(tick);
})"""
"""Milliseconds the page takes to draw six animation frames: ~100 in front, ~6,000 in a throttled tab."""


async def test_a_tab_typed_into_behind_another_keeps_drawing(
    pw_browser: Browser, tmp_path: Path, tab_pages: dict[str, str]
) -> None:
    """Input on a tab while another tab of the window is in front (the chrome tools act on tabs by id; a
    run's page may open a tab it does not follow) brings it to the front first: Chromium otherwise draws it
    one frame a second from then on, and every action's settle, which counts frames, waits for them."""
    context = await pw_browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        kite = make_kite(ContextSession(context), tmp_path)
        first = await context.new_page()
        await first.goto(tab_pages["form"])
        second = await context.new_page()  # opens in front of the first
        await second.goto(tab_pages["a"])
        kite.session.activate(first)
        for text in ("one", "two"):
            typed = await kite.act(action="type", selector="#field", text=text)
            assert typed.ok and typed.effects.value == text
            assert (await first.evaluate(FRAMES_JS)) < 3000, "the tab typed into draws a frame a second"
        kite.session.activate(second)  # and back: the other tab comes to the front in its turn
        assert (await kite.act(action="scroll", direction="down", amount=100)).ok
        assert (await second.evaluate(FRAMES_JS)) < 3000
        assert not second.is_closed() and await first.input_value("#field") == "two"
    finally:
        await context.close()
