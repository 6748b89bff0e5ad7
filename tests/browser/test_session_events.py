"""ContextSession events: JS dialogs answered and reported, downloads saved, new tabs drained."""

from __future__ import annotations

from pathlib import Path

import pytest

from kite_browser.agent.browser.context import safe_filename
from kite_browser.agent.browser.session import BrowserSession, ContextSession
from kite_browser.agent.config import BrowserConfig
from tests.fixtures.browser import PagesServer

DIALOGS = """<title>Dialogs</title>
<button id="alert" onclick="alert('hello'); document.title = 'after alert'">alert</button>
<button id="confirm" onclick="document.title = 'confirm:' + confirm('sure?')">confirm</button>
<button id="prompt" onclick="document.title = 'prompt:' + prompt('name?', 'kite')">prompt</button>
<input id="dirty" oninput="window.onbeforeunload = e => { e.preventDefault(); e.returnValue = ''; }">
"""


def read(path: str) -> str:
    return Path(path).read_text()


def exists(path: str) -> bool:
    return Path(path).exists()


@pytest.fixture(scope="module")
def urls(pages_server: PagesServer) -> dict[str, str]:
    return {
        "dialogs": pages_server.add("/events/dialogs", DIALOGS),
        "other": pages_server.add("/events/other", "<title>Other</title>"),
        "file": pages_server.add(
            "/events/report.csv",
            "a,b\n1,2\n",
            {"Content-Type": "text/csv", "Content-Disposition": 'attachment; filename="report.csv"'},
        ),
        "downloads": pages_server.add(
            "/events/downloads",
            '<a id="dl" href="/events/report.csv">report</a>'
            '<a id="blob" download="../../etc/evil name?.txt" href="data:text/plain,hi">blob</a>',
        ),
    }


async def test_alert_confirm_prompt_accepted(ctx_session: ContextSession, urls: dict[str, str]) -> None:
    page = ctx_session.page
    await page.goto(urls["dialogs"])
    await page.click("#alert")
    assert await page.title() == "after alert"  # the page was never blocked
    assert ctx_session.pending_dialog is not None
    assert ctx_session.pending_dialog.message == "hello"
    await page.click("#confirm")
    assert await page.title() == "confirm:true"
    await page.click("#prompt")
    assert await page.title() == "prompt:kite"  # the default value is typed

    events = ctx_session.drain_events()
    assert [(d.type, d.message, d.handled) for d in events.dialogs] == [
        ("alert", "hello", "accepted"),
        ("confirm", "sure?", "accepted"),
        ("prompt", "name?", "accepted"),
    ]
    assert events.dialogs[2].default_value == "kite"
    assert ctx_session.pending_dialog is None  # reported by the drain
    assert ctx_session.last_dialog is not None and ctx_session.last_dialog.type == "prompt"
    assert ctx_session.drain_events().dialogs == []


async def test_dismiss_policy_and_prompt_text(ctx_session: ContextSession, urls: dict[str, str]) -> None:
    page = ctx_session.page
    await page.goto(urls["dialogs"])
    ctx_session.dialog_policy = "dismiss"
    await page.click("#confirm")
    assert await page.title() == "confirm:false"
    await page.click("#prompt")
    assert await page.title() == "prompt:null"
    await page.click("#alert")  # alerts have one button: always accepted
    assert await page.title() == "after alert"
    ctx_session.dialog_policy = "accept"
    ctx_session.prompt_text = "Ada"
    await page.click("#prompt")
    assert await page.title() == "prompt:Ada"
    handled = [(d.type, d.handled) for d in ctx_session.drain_events().dialogs]
    assert handled == [
        ("confirm", "dismissed"),
        ("prompt", "dismissed"),
        ("alert", "accepted"),
        ("prompt", "accepted"),
    ]


async def test_beforeunload_is_reported(ctx_session: ContextSession, urls: dict[str, str]) -> None:
    page = ctx_session.page
    await page.goto(urls["dialogs"])
    await page.click("#dirty")  # a user gesture arms beforeunload
    await page.keyboard.type("x")
    ctx_session.dialog_policy = "dismiss"
    async with page.expect_event("dialog"):
        await page.evaluate("() => { location.href = '/events/other'; }")
    # The renderer runs nothing while the dialog is open: this answers only once it was dismissed,
    # and from the same document (the navigation was cancelled).
    assert await page.evaluate("document.title") == "Dialogs"
    assert page.url == urls["dialogs"]
    ctx_session.dialog_policy = "accept"
    await page.goto(urls["other"])
    assert await page.title() == "Other"
    assert [(d.type, d.handled) for d in ctx_session.drain_events().dialogs] == [
        ("beforeunload", "dismissed"),
        ("beforeunload", "accepted"),
    ]


async def test_downloads_saved_with_unique_names(
    ctx_session: ContextSession, urls: dict[str, str], tmp_path: Path
) -> None:
    page = ctx_session.page
    await page.goto(urls["downloads"])
    for _ in range(2):
        async with page.expect_download():
            await page.click("#dl")
    async with page.expect_download():
        await page.click("#blob")
    saved = await ctx_session.wait_for_downloads()
    folder = tmp_path / "downloads"
    names = sorted(Path(p).name for p in saved)
    assert names[1:] == ["report (1).csv", "report.csv"]
    assert names[0].endswith("evil name_.txt")  # no path survives (Chromium or safe_filename cleaned it)
    assert all(Path(p).parent == folder for p in saved)
    assert (folder / "report.csv").read_text() == "a,b\n1,2\n"
    assert (folder / names[0]).read_text() == "hi"
    assert sorted(ctx_session.drain_events().downloads) == sorted(saved)
    assert ctx_session.drain_events().downloads == []


async def test_downloads_dir_is_settable(
    ctx_session: ContextSession, urls: dict[str, str], tmp_path: Path
) -> None:
    ctx_session.downloads_dir = tmp_path / "run-1" / "downloads"
    page = ctx_session.page
    await page.goto(urls["downloads"])
    async with page.expect_download():
        await page.click("#dl")
    saved = await ctx_session.wait_for_downloads()
    assert saved == [str(tmp_path / "run-1" / "downloads" / "report.csv")]


def test_safe_filename() -> None:
    assert safe_filename("../../etc/passwd") == "passwd"
    assert safe_filename("..\\win\\x.txt") == "x.txt"
    assert safe_filename("") == "download"
    assert safe_filename(".hidden") == "hidden"
    assert safe_filename("résumé 2024.pdf") == "résumé 2024.pdf"


async def test_without_a_downloads_dir_nothing_is_left(
    browser_config: BrowserConfig, urls: dict[str, str]
) -> None:
    session = await BrowserSession(browser_config).start()  # no downloads_dir anywhere
    try:
        page = session.context.page
        await page.goto(urls["downloads"])
        async with page.expect_download():
            await page.click("#dl")
        saved = await session.context.wait_for_downloads()
        assert len(saved) == 1
        assert read(saved[0]) == "a,b\n1,2\n"  # reported, readable while the session runs
    finally:
        await session.close()
    assert not exists(saved[0])  # Playwright's temporary copy went with the browser
