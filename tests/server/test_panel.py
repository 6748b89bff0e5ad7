"""The web panel in a real browser against a live ``kite serve``: modules, the chrome panel with its screenshots,
the tool console, starting a run and watching its steps, approving a confirmation, the record, stopping a run.

One server and one page for the module; every test fails on a console error and saves a screenshot of each
screen it visits at 1280×800 and 390×844 (``tmp_path``)."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.async_api import Browser, Page, expect

from kite_browser.agent.config import BrowserConfig
from kite_browser.evals.sites import SitesServer
from tests.server.panel_harness import DESKTOP, PHONE, ConsoleWatch, LiveServer, serve_config, serving, snap

# one server and one page for the module: one xdist group
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("panel"), pytest.mark.timeout(300)]


def scripts(sites: SitesServer) -> dict[str, Any]:
    checkout = sites.url("/shop/checkout")
    return {
        "[buy]": {
            "replies": [
                {"name": "click", "arguments": {"selector": "#add-to-cart"}},
                {"name": "navigate", "arguments": {"url": checkout}},
                {"name": "click", "arguments": {"selector": "#place-order"}},
                {
                    "name": "done",
                    "arguments": {"success": True, "answer": "The order form asks for the details."},
                },
            ]
        },
        "[slow]": {
            "replies": [{"name": "scroll", "arguments": {"direction": "down"}}] * 3,
            "delays": [0, 120, 120],
        },
        "[hold]": {  # holds its profile until it is stopped
            "replies": [{"name": "scroll", "arguments": {"direction": "down"}}] * 3,
            "delays": [0, 120, 120],
        },
    }


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, sites: SitesServer, browser_config: BrowserConfig
) -> Iterator[LiveServer]:
    home = tmp_path_factory.mktemp("panel-serve")
    config = serve_config(home, browser_config, module_settings={"artifacts_dir": str(home / "artifacts")})
    with serving(home, scripts(sites), config, clean_exit=True) as live:
        yield live


@pytest.fixture
def console(panel: tuple[Page, ConsoleWatch]) -> ConsoleWatch:
    return panel[1]


def png_of(data_url: str | None) -> bytes:
    assert data_url and data_url.startswith("data:image/png;base64,"), data_url
    return base64.b64decode(data_url.split(",", 1)[1])


# ----------------------------------------------------------------------------- modules and the chrome panel


async def test_modules_list_shows_state_and_tool_counts(
    page: Page, server: LiveServer, tmp_path: Path
) -> None:
    await page.goto(f"{server.base}/#modules")
    modules = server.api("GET", "/api/modules")["modules"]
    assert page.url.endswith("#modules"), "the token stays out of the address bar"
    cards = page.locator("#module-list .module-card")
    await expect(cards).to_have_count(len(modules))
    for m in modules:
        card = page.locator(f'#module-list .module-card[data-module="{m["name"]}"]')
        await expect(card).to_contain_text(m["status"])
        await expect(card).to_contain_text(f"{m['tool_count']} tool")
    await snap(page, tmp_path, "modules")


async def test_chrome_panel_lists_browsers_previews_tabs_and_closes_them(
    page: Page, server: LiveServer, sites: SitesServer, tmp_path: Path
) -> None:
    launched = server.api("POST", "/api/tools/chrome_launch", json={})
    browser, tab = launched["browserId"], launched["tabId"]
    server.api("POST", "/api/tools/chrome_navigate", json={"tabId": tab, "url": sites.url("/shop/")})
    await page.locator('#module-list [data-module="chrome"] .card-main').click()
    panel = page.locator(".chrome-module-panel")
    tab_card = panel.locator(".tab", has=page.locator(f"text={tab}"))
    await expect(panel.locator(".browser")).to_have_count(1)
    await expect(panel.locator(".browser")).to_contain_text(browser)
    shop_title = server.api("GET", f"/api/modules/chrome/browsers/{browser}/tabs")["tabs"][0]["title"]
    await expect(tab_card.locator(".title")).to_have_text(shop_title)
    thumb = tab_card.locator("img")
    await expect(thumb).to_have_attribute("src", re.compile("^data:image/png"))
    first = png_of(await thumb.get_attribute("src"))
    assert first.startswith(b"\x89PNG") and len(first) > 2000

    # the preview is live: a navigation elsewhere shows up without touching the panel
    before = await thumb.get_attribute("src")
    server.api("POST", "/api/tools/chrome_navigate", json={"tabId": tab, "url": sites.url("/shop/cart")})
    cart_title = server.api("GET", f"/api/modules/chrome/browsers/{browser}/tabs")["tabs"][0]["title"]
    assert cart_title != shop_title
    await expect(tab_card.locator(".title")).to_have_text(cart_title)
    await expect(thumb).not_to_have_attribute("src", before or "")
    await tab_card.locator(".shot").click()
    await expect(panel.locator(".tab-preview img")).to_have_attribute("src", re.compile("^data:"))
    await snap(page, tmp_path, "chrome-panel")

    second = server.api("POST", "/api/tools/chrome_new_tab", json={"browserId": browser})["tabId"]
    await panel.locator(".refresh-btn").click()
    await expect(panel.locator(".tab")).to_have_count(2)
    await panel.get_by_role("button", name="Close tab").first.click()
    await expect(panel.locator(".tab")).to_have_count(1)
    left = [t["tabId"] for t in server.api("GET", f"/api/modules/chrome/browsers/{browser}/tabs")["tabs"]]
    assert len(left) == 1 and left[0] in (tab, second)
    await panel.get_by_role("button", name=f"Close browser {browser}").click()
    await expect(panel.locator(".browser")).to_have_count(0)
    await expect(panel.locator(".empty")).to_contain_text("No browser is open")
    assert server.api("GET", "/api/modules/chrome/browsers")["browsers"] == []


# ----------------------------------------------------------------------------- the tool console


async def test_tool_console_calls_tools_and_shows_typed_errors(
    page: Page, console: ConsoleWatch, server: LiveServer, sites: SitesServer, tmp_path: Path
) -> None:
    await page.goto(f"{server.base}/#tools/chrome_launch")
    args = page.locator("#tool-args")
    await expect(page.locator("#tool-select")).to_have_value("chrome_launch")
    assert json.loads(await args.input_value()) == {"headless": True}  # the schema's default
    await page.locator("#tool-call").click()
    out = page.locator("#tool-output pre")
    await expect(out).to_contain_text('"browserId"')
    result = json.loads(await out.inner_text())
    browser, tab = result["browserId"], result["tabId"]

    await page.select_option("#tool-select", "chrome_navigate")
    skeleton = json.loads(await args.input_value())
    assert {"tabId", "url"} <= set(skeleton)  # the required arguments are pre-filled
    await args.fill(json.dumps({**skeleton, "tabId": tab, "url": sites.url("/shop/")}))
    await args.press("Control+Enter")
    await expect(page.locator("#tool-status")).to_contain_text("ok")
    await expect(out).to_contain_text(sites.url("/shop/"))
    await snap(page, tmp_path, "tool-console")

    await page.select_option("#tool-select", "chrome_list_tabs")
    await args.fill('{"browserId": "nope"}')
    console.expect("/api/tools/chrome_list_tabs")  # the browser logs the 404 answer as a failed resource
    await page.locator("#tool-call").click()
    await expect(page.locator("#tool-output [role=alert]")).to_contain_text("browser_not_found")
    await expect(page.locator("#tool-status")).to_have_text("browser_not_found")
    await snap(page, tmp_path, "tool-error")

    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    await args.fill('{"browserId": ')
    await page.locator("#tool-call").click()
    await expect(page.locator("#tool-output [role=alert]")).to_contain_text("invalid_json")
    assert not [u for u in requests if "/api/tools/" in u], "invalid JSON is caught before any request"
    server.api("POST", "/api/tools/chrome_close", json={"browserId": browser})


async def test_every_control_of_each_view_is_reachable_with_tab(page: Page, server: LiveServer) -> None:
    for view in ("modules/chrome", "tools", "runs", "settings"):
        await page.goto(f"{server.base}/#{view}")
        await expect(page.locator(f"nav a[href='#{view.split('/')[0]}']")).to_have_attribute(
            "aria-current", "page"
        )
        if view == "tools":
            await expect(page.locator("#tool-select option").first).to_be_attached()
        controls: list[str] = await page.evaluate(
            """() => [...document.querySelectorAll('a[href], button, input, select, textarea, summary')]
                .filter((e) => !e.disabled && e.checkVisibility())
                .map((e, i) => (e.dataset.kbd = String(i)))"""
        )
        assert len(controls) >= 5, view
        await page.locator("body").focus()
        reached = set()
        for _ in range(len(controls) + 5):
            await page.keyboard.press("Tab")
            reached.add(await page.evaluate("document.activeElement?.dataset.kbd ?? null"))
        missing = await page.evaluate(
            "(keys) => keys.map((k) => document.querySelector(`[data-kbd='${k}']`)?.outerHTML.slice(0, 80))",
            sorted(set(controls) - reached),
        )
        assert not missing, f"#{view}: not reachable with Tab: {missing}"


# ----------------------------------------------------------------------------- runs


async def open_options(page: Page) -> None:
    """Unfold the run form's options (folded so the run list stays in view under the form)."""
    await page.evaluate("() => { document.getElementById('run-options').open = true; }")


async def start_run(page: Page, server: LiveServer, task: str, start_url: str) -> str:
    await page.goto(f"{server.base}/#runs")
    await page.fill("#run-task", task)
    await page.fill("#run-url", start_url)
    await open_options(page)
    await page.fill("#run-steps", "8")
    await page.click("#run-start")
    await expect(page).to_have_url(re.compile(r"#runs/\w+$"))
    return page.url.rsplit("/", 1)[1]


async def test_a_run_streams_its_steps_and_waits_for_an_approval(
    page: Page, server: LiveServer, sites: SitesServer, tmp_path: Path
) -> None:
    task = "[buy] Put the blue mug in the cart and place the order"
    run_id = await start_run(page, server, task, sites.url("/shop/product/classic-blue-mug"))
    box = page.locator(".confirm-box")
    await expect(box).to_be_visible(timeout=90_000)
    (pending,) = server.api("GET", f"/api/runs/{run_id}")["confirmations"]
    # the TUI modal's details: the action, its target as the page shows it, the page, the reasons
    assert pending["action"]["action"] == "click" and pending["element"] is not None
    await expect(box.locator(".confirm-action")).to_have_text('click selector="#place-order"')
    await expect(box.locator(".confirm-target")).to_have_text(
        re.compile(rf'^\[{pending["element"]["index"]}\] button "Place order"')
    )
    await expect(box.locator(".confirm-url")).to_have_text(pending["url"])
    for reason in pending["reasons"]:
        await expect(box.locator(".confirm-reasons")).to_contain_text(reason)
    await expect(box.locator("button.deny")).to_be_focused()  # the safe answer has the focus, as in the TUI
    # the server's words (action_text, target), and the waiting note under the question's own step
    assert pending["action_text"] == 'click selector="#place-order"' and pending["step"] == 3
    await expect(box.locator(".confirm-target")).to_have_text(pending["target"])
    waiting = page.locator(f'.steps > .step[data-step="{pending["step"]}"] .action.note.waiting')
    await expect(waiting).to_contain_text('click selector="#place-order"')
    await expect(page.locator(".action.note.waiting")).to_have_count(1)
    # the steps so far, each with its action, result and screenshot
    view = server.api("GET", f"/api/runs/{run_id}")
    for step in view["steps"]:
        row = page.locator(f'.steps > .step[data-step="{step["step"]}"]')
        for action in step["actions"]:
            await expect(row).to_contain_text(action["action"])
        if step["screenshot_url"]:
            await expect(row.locator(".thumb img")).to_have_attribute("src", re.compile("^blob:"))
            width = await row.locator(".thumb img").evaluate(
                "(img) => img.decode().then(() => img.naturalWidth)"
            )
            assert width > 100
    await expect(page.locator('.steps > .step[data-step="1"] .action.ok')).to_contain_text("#add-to-cart")
    await snap(page, tmp_path, "run-confirmation")

    await box.get_by_role("button", name="Approve (y)").click()
    await expect(box).to_have_count(0)
    await expect(page.locator(".run-head .badge")).to_have_text("success", timeout=60_000)
    await expect(page.locator(".result-card")).to_contain_text("The order form asks for the details.")
    view = server.api("GET", f"/api/runs/{run_id}")
    assert view["status"] == "finished" and view["result"]["success"] and not view["confirmations"]
    place = [a for s in view["steps"] for a in s["actions"] if "place-order" in a["action"]]
    assert place and place[0]["ok"] is True, view["steps"]  # the approved click ran
    approved = page.locator(f'.steps > .step[data-step="{pending["step"]}"] .action.note.ok')
    await expect(approved).to_have_text("Approved: approved over HTTP")
    await expect(page.locator(f'#run-list [data-run="{run_id}"]')).to_contain_text("success")
    await snap(page, tmp_path, "run-finished")

    await page.get_by_role("button", name="Open record").click()
    dialog = page.locator("dialog.record")
    await expect(dialog).to_be_visible()
    record = server.api("GET", f"/api/runs/{run_id}/record")
    await expect(dialog.locator(".record-steps tbody tr")).to_have_count(len(record["steps"]))
    await expect(dialog).to_contain_text(record["run"]["result"]["answer"])
    # each recorded action as the server words it (action_text)
    await expect(dialog.locator(".record-steps code")).to_have_text(
        [a["action_text"] for step in record["steps"] for a in step["actions"]]
    )
    await expect(dialog.locator(".record-files summary")).to_contain_text(f"Files ({len(record['files'])})")
    await snap(page, tmp_path, "run-record")
    await page.keyboard.press("Escape")
    await expect(dialog).to_be_hidden()


async def test_a_run_is_stopped_from_the_panel(
    page: Page, server: LiveServer, sites: SitesServer, tmp_path: Path
) -> None:
    run_id = await start_run(page, server, "[slow] Scroll the shop slowly", sites.url("/shop/"))
    # step 1 has run; the model's next reply takes minutes: the run is mid-step when it is stopped
    await expect(page.locator('.steps > .step[data-step="1"] .action.ok')).to_contain_text(
        "scroll", timeout=90_000
    )
    await expect(page.locator(".run-head .badge")).to_have_text("running")
    await snap(page, tmp_path, "run-running")
    gets: list[str] = []
    page.on(
        "request",
        lambda r: (
            gets.append(r.url)
            if r.method == "GET" and urlsplit(r.url).path == f"/api/runs/{run_id}"
            else None
        ),
    )
    step2 = page.locator('.steps > .step[data-step="2"]')
    await expect(step2).to_be_visible()  # observed; its model call is the one that takes minutes
    await page.get_by_role("button", name="Stop run").click()
    await expect(page.locator(".run-head .badge")).to_have_text("stopped", timeout=60_000)
    # the step it stopped in says why it has no action (it showed nothing at all)
    await expect(step2.locator(".action")).to_have_text(
        "No action: the run was stopped before this step acted."
    )
    await expect(page.locator('.steps > .step[data-step="1"] .action.idle')).to_have_count(0)
    assert gets == []  # the finish event said how the run ended: no GET of the run after it
    await expect(page.get_by_role("button", name="Stop run")).to_be_hidden()
    view = server.api("GET", f"/api/runs/{run_id}")
    assert view["status"] == "stopped" and view["result"]["stop_reason"] == "interrupted"
    await expect(page.locator(".result-card")).to_contain_text("interrupted")
    await snap(page, tmp_path, "run-stopped")


async def test_without_the_token_the_panel_asks_for_it(pw_browser: Browser, server: LiveServer) -> None:
    context = await pw_browser.new_context(viewport=DESKTOP)
    try:
        page = await context.new_page()
        watch = ConsoleWatch(page)
        await page.goto(server.base + "/")
        form = page.locator("#token-form")
        await expect(form).to_be_visible()
        await expect(page.locator("#token-input")).to_be_focused()
        await expect(page.locator("#conn")).to_have_text("token needed")
        watch.expect("/api/modules")  # the browser logs the 401 answer as a failed resource
        await page.keyboard.type("not-the-token")
        await page.keyboard.press("Enter")
        await expect(page.locator("#conn")).to_have_text("token refused")
        await expect(form).to_be_visible()
        await page.locator("#token-input").fill(server.token)
        await page.locator("#token-input").focus()
        await page.keyboard.press("Enter")
        await expect(page.locator("body[data-ready]")).to_be_attached()
        await expect(form).to_be_hidden()
        await expect(page.locator("#conn")).to_contain_text("connected")
        await expect(page.locator("#module-list .module-card").first).to_be_visible()
        watch.check()
    finally:
        await context.close()


# ----------------------------------------------------------------------------- the run form's profile

FORM_FIELDS = ("#run-task", "#run-url", "#run-profile", "#run-approve", "#run-schema")


async def test_the_run_form_sends_a_profile_with_approvals_vision_and_schema(
    page: Page, server: LiveServer, sites: SitesServer, console: ConsoleWatch, tmp_path: Path
) -> None:
    await page.goto(f"{server.base}/#runs")
    await page.fill("#run-task", "[hold] Keep the shop open in my profile")
    await page.fill("#run-url", sites.url("/shop/"))
    await open_options(page)
    await page.fill("#run-profile", "shopper")
    await page.fill("#run-approve", "confirm, executeJS")
    await page.select_option("#run-vision", "false")
    await page.fill("#run-schema", '{"type": "object", "properties": {"price": {"type": "number"}}}')
    await snap(page, tmp_path, "run-form-profile")
    await page.click("#run-start")
    await expect(page).to_have_url(re.compile(r"#runs/\w+$"))
    run_id = page.url.rsplit("/", 1)[1]
    error = page.locator("#run-form-error")
    try:
        assert server.api("GET", f"/api/runs/{run_id}")["profile"] == "shopper"
        await expect(page.locator(".run-meta")).to_contain_text("profile shopper")
        await expect(page.locator('.steps .step[data-step="1"]')).to_be_visible()  # its browser is up
        # a second run on the profile in use: the form says why (and which run has it), on the profile field
        await page.fill("#run-task", "[buy] Another run in my profile")
        console.expect("/api/runs")  # the browser logs the 409 as a failed resource
        await page.click("#run-start")
        await expect(error).to_contain_text("profile_in_use")
        await expect(error).to_contain_text(run_id)
        await expect(page.locator("#run-profile")).to_be_focused()
        assert page.url.endswith(f"#runs/{run_id}"), "no run was started"
        await snap(page, tmp_path, "run-form-profile-in-use")
        await page.fill("#run-profile", "../shopper")
        console.expect("/api/runs")
        await page.click("#run-start")
        await expect(error).to_contain_text("invalid_profile")
    finally:
        server.api("POST", f"/api/runs/{run_id}/stop")
        for field in FORM_FIELDS:  # the form as the other tests expect it
            await page.fill(field, "")
        await page.select_option("#run-vision", "")
    config = server.api("GET", f"/api/runs/{run_id}/record")["run"]["config"]
    assert config["browser"]["profile"] == "shopper"
    assert config["safety"]["approve"] == ["confirm", "executeJS"] and config["llm"]["vision"] is False


async def test_a_token_url_pasted_into_an_open_tab_is_read_at_once(
    pw_browser: Browser, server: LiveServer
) -> None:
    """A ``#token=`` URL pasted into a panel tab that is already open (after a restart of ``kite serve``,
    say) is read on the hash's change, with no reload: the panel connects."""
    context = await pw_browser.new_context(viewport=DESKTOP)
    try:
        page = await context.new_page()
        watch = ConsoleWatch(page)
        await page.goto(server.base + "/")
        await expect(page.locator("#conn")).to_have_text("token needed")
        watch.expect("/api/modules")
        loads: list[str] = []
        page.on("load", lambda _page: loads.append("load"))
        await page.evaluate("t => { location.hash = 'token=' + t; }", server.token)
        await expect(page.locator("body[data-ready]")).to_be_attached()
        await expect(page.locator("#token-form")).to_be_hidden()
        await expect(page.locator("#conn")).to_contain_text("connected")
        assert page.url.endswith("#modules") and loads == []  # no reload; the token out of the address bar
        watch.check()
    finally:
        await context.close()


@pytest.mark.parametrize("size", ["desktop", "phone"])
async def test_the_run_just_started_is_in_view(
    pw_browser: Browser, server: LiveServer, sites: SitesServer, size: str
) -> None:
    """After Start run the run pane is in the window at 1280x800 (the form is taller than the window) and
    at a phone's size (the pane comes first there), not scrolled out of view; the list's times have a date."""
    viewport = DESKTOP if size == "desktop" else PHONE
    context = await pw_browser.new_context(viewport=viewport)
    try:
        page = await context.new_page()
        await page.goto(server.panel_url)
        await expect(page.locator("body[data-ready]")).to_be_attached()
        await page.goto(f"{server.base}/#runs")
        await page.fill("#run-task", "[slow] Look at the shop")
        await page.fill("#run-url", sites.url("/shop/"))
        await page.click("#run-start")
        await expect(page).to_have_url(re.compile(r"#runs/\w+$"))
        await expect(page.locator("#run-pane .run-head")).to_be_visible()
        top = await page.evaluate("() => document.getElementById('run-pane').getBoundingClientRect().top")
        assert -1 <= top < viewport["height"] / 2, (size, top)  # its top in the upper half of the window
        run_id = page.url.rsplit("/", 1)[1]
        card = page.locator(f'#run-list [data-run="{run_id}"]')
        await expect(card).to_contain_text(re.compile(r"20\d\d"))  # the date, not only the time
        server.api("POST", f"/api/runs/{run_id}/stop")
    finally:
        await context.close()


async def test_the_run_list_is_in_view_under_the_form_at_desktop_size(
    pw_browser: Browser, server: LiveServer, sites: SitesServer
) -> None:
    """At 1280x800 the run list starts within the window's upper two thirds: the form's options are folded
    (a <details> the tests open), so the task, the start URL and Start run stand above the list."""
    finished_api_run = server.api(
        "POST", "/api/runs", json={"task": "[ok] Find the mug", "start_url": sites.url("/shop/")}
    )
    context = await pw_browser.new_context(viewport=DESKTOP)
    try:
        page = await context.new_page()
        await page.goto(server.panel_url)
        await expect(page.locator("body[data-ready]")).to_be_attached()
        await page.goto(f"{server.base}/#runs")
        card = page.locator(f'#run-list [data-run="{finished_api_run["id"]}"]')
        await expect(card).to_be_visible()
        top = await card.evaluate("e => e.getBoundingClientRect().top")
        box = await card.bounding_box()
        assert box is not None and box["y"] + box["height"] <= DESKTOP["height"], box  # whole, no scrolling
        assert top < 540, top  # two thirds down at most (under the unfolded form it was ~650 px)
        await expect(page.locator("#run-options")).not_to_have_attribute("open", "")
        await expect(page.locator("#run-start")).to_be_in_viewport()
        await page.click("#run-options summary")  # the options are one click away
        await expect(page.locator("#run-profile")).to_be_visible()
    finally:
        server.api("POST", f"/api/runs/{finished_api_run['id']}/stop")
        await context.close()
