# ruff: noqa: F811, ASYNC240  (the kite fixture is imported into each module; tiny test-file reads)
"""navigate / history / tabs / dialogs / downloads / upload / screenshot / executeJS / scroll / getElements."""

from __future__ import annotations

import asyncio
from pathlib import Path

from kite_browser.agent.base.errors import browser_failure
from kite_browser.agent.config import KiteConfig
from kite_browser.evals.sites import SitesServer
from tests.browser.action_pages.harness import (
    Kite,
    kite,  # noqa: F401
    make_kite,
)
from tests.fixtures.browser import PagesServer


async def test_navigate_history_and_refresh(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/test/counter.html"))
    nav = await kite.act(action="navigate", url="/forms/")
    assert nav.ok and nav.effects.navigated and nav.effects.url_after == sites.url("/forms/")
    back = await kite.act(action="goBack")
    assert back.ok and back.effects.url_after == sites.url("/test/counter.html")
    fwd = await kite.act(action="goForward")
    assert fwd.ok and fwd.effects.url_after == sites.url("/forms/")
    nothing = await kite.act(action="goForward")
    assert not nothing.ok and "no next page" in nothing.message
    await kite.page.fill("#full-name", "x")
    ref = await kite.act(action="refresh")
    assert ref.ok and await kite.page.input_value("#full-name") == ""


async def test_javascript_and_file_urls_refused_unless_allowed(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/test/counter.html"))
    for url in ("javascript:document.title='pwned'", "file:///etc/passwd", "chrome://settings"):
        res = await kite.act(action="navigate", url=url)
        assert res.error is not None and res.error.error == "url_refused", url
    assert await kite.page.title() != "pwned"
    cfg = KiteConfig.model_validate({"browser": {"allow_javascript_urls": True}})
    k = make_kite(kite.session, kite.run_dir, cfg)
    ok = await k.act(action="navigate", url="javascript:document.title='allowed'")
    assert ok.ok and await kite.page.title() == "allowed"
    failed = await kite.act(action="navigate", url="http://no-such-host.invalid/")
    assert failed.error is not None and failed.error.error == "navigation_failed"
    again = await kite.act(
        action="navigate", url=sites.url("/test/counter.html")
    )  # the session keeps working
    assert again.ok and (await kite.act(action="click", selector="#increment")).ok


async def test_new_tab_link_and_switch_tab(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/dynamic/"))
    res = await kite.act(action="click", selector="#new-tab-link")
    assert res.ok and res.effects.new_tabs and "help.html" in res.effects.new_tabs[0]
    sw = await kite.act(action="switchTab", url="help.html")
    assert sw.ok and "help.html" in kite.page.url and sw.effects.url_after == kite.page.url
    back = await kite.act(action="switchTab", index=0)
    assert back.ok and kite.page.url == sites.url("/dynamic/")
    bad = await kite.act(action="switchTab", index=7)
    assert bad.error is not None and bad.error.error == "tab_not_found"


async def test_dialogs_are_reported(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/dynamic/"))
    res = await kite.act(action="click", selector="#confirm-button")
    assert res.ok and res.effects.dialog is not None
    assert res.effects.dialog.type == "confirm" and res.effects.dialog.handled == "accepted"
    alert = await kite.act(action="click", selector="#alert-button")
    assert alert.effects.dialog is not None and alert.effects.dialog.type == "alert"


async def test_download_is_reported(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/test/download.html"))
    res = await kite.act(action="click", selector="#download-link")
    assert res.ok and len(res.effects.downloads) == 1
    assert Path(res.effects.downloads[0]).read_text().strip()


async def test_upload_only_from_allowed_folders(kite: Kite, sites: SitesServer, tmp_path: Path) -> None:
    await kite.goto(sites.url("/forms/"))
    (kite.run_dir / "cv.txt").write_text("hello")
    ok = await kite.act(action="uploadFile", selector="#avatar", filePath="cv.txt")
    assert ok.ok and ok.effects.value == "cv.txt"
    assert await kite.page.locator("#avatar").evaluate("e => e.files[0].name") == "cv.txt"
    dots = await kite.act(action="uploadFile", selector="#avatar", filePath="../etc/passwd")
    assert dots.error is not None and dots.error.error == "path_refused" and ".." in dots.message
    outside = await kite.act(action="uploadFile", selector="#avatar", filePath="/etc/hostname")
    assert outside.error is not None and outside.error.error == "path_refused"
    extra = tmp_path.parent / f"{tmp_path.name}-uploads"
    extra.mkdir(exist_ok=True)
    (extra / "a.txt").write_text("a")
    cfg = KiteConfig.model_validate({"browser": {"upload_dirs": [str(extra)]}})
    k = make_kite(kite.session, kite.run_dir, cfg)
    assert (await k.act(action="uploadFile", selector="#avatar", filePath=str(extra / "a.txt"))).ok


async def test_screenshot_saves_png_in_run_dir(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/forms/"))
    res = await kite.act(action="screenshot")
    path = Path(res.data["path"])
    assert res.ok and path.parent == kite.run_dir / "screenshots" and path.read_bytes()[:4] == b"\x89PNG"
    assert "base64" not in res.data
    kite.ex.screenshot_b64 = True
    el = await kite.act(action="screenshot", index=await kite.index_of("#submit"))
    assert el.ok and el.data["base64"]


async def test_execute_js_values_errors_and_timeout(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/forms/"))
    assert (await kite.act(action="executeJS", code="1 + 2")).data["value"] == 3
    body = await kite.act(action="executeJS", code="const a = [document.body, NaN, undefined]; return a;")
    assert body.data["value"] == ["<body>", "NaN", None]
    err = await kite.act(action="executeJS", code="throw new Error('boom')")
    assert err.error is not None and err.error.error == "js_error" and "boom" in err.message
    cfg = KiteConfig.model_validate({"browser": {"js_timeout_ms": 300}})
    k = make_kite(kite.session, kite.run_dir, cfg)
    slow = await k.act(action="executeJS", code="while (true) {}")
    assert slow.error is not None and slow.error.error == "js_timeout"
    assert (await kite.act(action="executeJS", code="document.title")).ok  # the page is alive again


ADVICE = "switch to another tab or open a new one, or restart the browser"


async def test_a_tab_that_crashes_during_an_action_answers_browser_crashed(
    kite: Kite, sites: SitesServer
) -> None:
    """The renderer ends while an action waits on it (out of memory, a fault in Chromium: CI saw it in a
    screenshot): the result is ``browser_crashed`` saying what to do, as the tab's next use says, not the raw
    ``browser_error`` "Target crashed"."""
    await kite.goto(sites.url("/forms/"))
    page = kite.page
    cdp = await page.context.new_cdp_session(page)
    code = "console.log('waiting'); await new Promise(r => setTimeout(r, 30000)); return 1"
    async with page.expect_console_message(lambda m: m.text == "waiting"):
        running = asyncio.ensure_future(kite.act(action="executeJS", code=code))
    crash = asyncio.ensure_future(cdp.send("Page.crash"))  # never answered: the renderer is gone
    res = await running
    crash.cancel()
    assert res.error is not None and res.error.error == "browser_crashed", res
    # at once, not the step's 60 s browser_timeout; said as the tab's next use says it
    assert "crashed" in res.message and res.message.endswith(ADVICE), res.message
    again = await kite.act(action="executeJS", code="1")
    assert again.error is not None and again.error.error == "browser_crashed"
    assert "crashed" in again.message and again.message.endswith(ADVICE)


async def test_scroll_page_and_scrollable_element(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/test/scrollable.html"))
    idx = await kite.index_of("#scroller")
    res = await kite.act(action="scroll", direction="down", index=idx, amount=300)
    assert res.ok and res.data["container"] == "div" and res.data["moved"] == [0, 300]
    assert await kite.page.locator("#scroller").evaluate("e => e.scrollTop") == 300
    assert res.effects.new_in_view and res.effects.new_in_view > 0
    up = await kite.act(action="scroll", direction="up", index=idx, amount=1000)
    assert up.data["moved"] == [0, -300]
    again = await kite.act(action="scroll", direction="up", index=idx)
    assert again.ok and "did not move" in again.message


_SCROLL_REACTS_PAGE = """<!doctype html><body style="height: 4000px"><button>Top</button><script>
let shown = 0;
addEventListener('scroll', () => { if (!shown++) requestAnimationFrame(() =>
  document.body.insertAdjacentHTML('afterbegin', '<button style="position: fixed; top: 0">Back to top</button>')); });
</script></body>"""


async def test_a_page_scroll_reports_what_its_scroll_handler_drew(
    kite: Kite, pages_server: PagesServer
) -> None:
    """A page scroll and its settle's wait are made in the mark's call (one round trip when nothing else
    happens): what the page's scroll handler adds a frame later is still the action's effect, and the scroll
    position is read as the wait ends."""
    await kite.goto(pages_server.add("/scroll-reacts.html", _SCROLL_REACTS_PAGE))
    res = await kite.act(action="scroll", direction="down", amount=500)
    assert res.ok and res.data["moved"] == [0, 500], res
    assert res.effects.added == 1 and res.effects.changed, res.effects
    assert res.effects.scroll == {"x": 0.0, "y": 500.0}, res.effects
    assert res.data["settle_ms"] > 0
    assert await kite.page.locator("text=Back to top").count() == 1


async def test_infinite_scroll_loads_more(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/dynamic/"))
    before = await kite.page.locator("#feed > *").count()
    for _ in range(6):
        res = await kite.act(action="scroll", direction="down", amount=3000)
        assert res.ok and res.effects.scroll is not None
    assert await kite.page.locator("#feed > *").count() > before


async def test_get_elements_and_details(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/forms/"))
    res = await kite.act(action="getElements", type="button", visible=False)
    assert res.ok and res.data["elements"] and all(e["kind"] == "button" for e in res.data["elements"])
    assert "Submit" in res.data["text"] or "submit" in res.data["text"].lower()
    idx = res.data["elements"][0]["index"]
    det = await kite.act(action="getElementDetails", indices=[idx])
    assert det.ok and det.data["elements"][0]["index"] == idx
    done = await kite.act(action="done", success=True, answer="42")
    assert done.ok and done.data == {"success": True, "answer": "42"}


async def test_wait_action(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/test/counter.html"))
    res = await kite.act(action="wait", ms=120)
    assert res.ok and res.duration_ms >= 120


_CSP_PAGE = "<!doctype html><title>Strict</title><body><p id='x'>strict page</p></body>"
_CSP = {"Content-Security-Policy": "default-src 'self'; script-src 'self'"}


async def test_execute_js_on_a_strict_csp_page(kite: Kite, pages_server: PagesServer) -> None:
    await kite.goto(pages_server.add("/csp.html", _CSP_PAGE, _CSP))
    blocked = await kite.page.evaluate(
        "async () => { await new Promise((r) => setTimeout(r, 1));"
        " try { new Function('return 1')(); return 'ran'; } catch (e) { return e.name; } }"
    )
    assert blocked == "EvalError"  # the header is in force: the page itself may not compile strings
    res = await kite.act(action="executeJS", code="document.querySelector('#x').textContent")
    assert res.ok and res.method == "evaluate" and res.data["value"] == "strict page"
    body = await kite.act(
        action="executeJS",
        code="const n = [1, 2, 3]; return {sum: n.reduce((a, b) => a + b), el: document.body};",
    )
    assert body.ok and body.data["value"] == {"sum": 6, "el": "<body>"}
    awaited = await kite.act(
        action="executeJS", code="await new Promise((r) => setTimeout(r, 10)); return document.title + '!'"
    )
    assert awaited.ok and awaited.data["value"] == "Strict!"
    err = await kite.act(action="executeJS", code="throw new Error('csp boom')")
    assert err.error is not None and err.error.error == "js_error" and "csp boom" in err.message
    syntax = await kite.act(action="executeJS", code="return (")
    assert syntax.error is not None and syntax.error.error == "js_error" and "SyntaxError" in syntax.message
    k = make_kite(kite.session, kite.run_dir, KiteConfig.model_validate({"browser": {"js_timeout_ms": 300}}))
    slow = await k.act(action="executeJS", code="while (true) {}")
    assert slow.error is not None and slow.error.error == "js_timeout"
    assert (await kite.act(action="executeJS", code="document.title")).data["value"] == "Strict"


def test_playwright_errors_become_typed_errors_with_their_first_line() -> None:
    """One rule for the executor and the MCP server: a crash during a call says what to do; the rest is
    ``browser_error`` with the error's first line."""
    crashed = browser_failure("Page.screenshot: Target crashed \nCall log:\n  - taking page screenshot")
    assert crashed == {
        "error": "browser_crashed",
        "message": f"Page.screenshot: Target crashed: the tab crashed; {ADVICE}",
    }
    other = browser_failure("Locator.click: Timeout 500ms exceeded.\nCall log:\n  - waiting for locator")
    assert other == {"error": "browser_error", "message": "Locator.click: Timeout 500ms exceeded."}
    assert browser_failure("") == {"error": "browser_error", "message": "browser error"}
