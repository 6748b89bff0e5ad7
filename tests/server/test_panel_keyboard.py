"""Every control of every panel screen is reachable by keyboard, in a real browser against a live ``kite serve``:
Tab and Shift+Tab each reach every link, button, input, select, textarea and summary of the screen (of the
dialog when one is open), each one shown on screen and not covered when it has the focus, at 1280×800 and at
390×844; Enter and Space work the main controls (start a run, open it, replay it, approve a tool call, stop).

Screens: the runs list with the new-run form and the filters, a finished run, its replay, its record, a running
run with its live view, the Tools console with its approval card, the settings page, the modules."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.async_api import Page, expect

from kite_browser.agent.config import BrowserConfig
from kite_browser.evals.sites import SitesServer
from tests.server.panel_harness import DESKTOP, PHONE, LiveServer, serve_config, serving

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("panel_keyboard"), pytest.mark.timeout(600)]

SCRIPTS: dict[str, Any] = {
    "[ok]": {
        "replies": [
            {"name": "scroll", "arguments": {"direction": "down"}},
            {"name": "scroll", "arguments": {"direction": "up"}},
            {"name": "done", "arguments": {"success": True, "answer": "$7.25"}},
        ]
    },
    "[long]": {
        "replies": [{"name": "scroll", "arguments": {"direction": "down"}}] * 4,
        "delays": [0, 300, 300, 300],  # mid-step until it is stopped
    },
}

SCRIPTS["[done]"] = SCRIPTS["[ok]"]  # a second finished run (the fake model counts replies per tag)

# The controls of the screen (or of ``scope``), each named by what it is and says, and which of its namesakes it
# is: a name survives the list's re-rendering (a mark on the element would not).
NAMES = """
  const sel = 'a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex="-1"])';
  const usable = (e) => !e.disabled && e.checkVisibility({ visibilityProperty: true }) && !e.closest('[inert]');
  const names = (root) => {
    const seen = new Map();
    return [...root.querySelectorAll(sel)].filter(usable).map((e) => {
      const text = (e.textContent || e.getAttribute('aria-label') || e.getAttribute('placeholder') || '').trim();
      const href = e.getAttribute('href');  // a link is its address (a run card's text moves with the run)
      const base = href ? `a ${href}` : `${e.tagName.toLowerCase()}#${e.id} "${text.slice(0, 40)}"`;
      const n = (seen.get(base) || 0) + 1;
      seen.set(base, n);
      return [e, n > 1 ? `${base} (${n})` : base];
    });
  };
"""
CONTROLS = f"""(scope) => {{ {NAMES}
  return names(scope ? document.querySelector(scope) : document).map(([, name]) => name);
}}"""

# The focused control: its name, and whether it is on screen and not covered (by the sticky bar, a dialog...).
FOCUSED = f"""(scope) => {{ {NAMES}
  const e = document.activeElement;
  const mine = e && names(scope ? document.querySelector(scope) : document).find(([c]) => c === e);
  if (!mine) return null;
  const r = e.getBoundingClientRect();
  const onScreen = r.width > 0 && r.height > 0 && r.left >= -1 && r.right <= innerWidth + 1
    && r.bottom > 0 && r.top < innerHeight;
  const top = Math.max(r.top, 0), bottom = Math.min(r.bottom, innerHeight);
  const hit = document.elementFromPoint(r.left + r.width / 2, (top + bottom) / 2);
  const shown = !!hit && (hit === e || e.contains(hit) || (hit.tagName === 'LABEL' && hit.control === e));
  return {{ name: mine[1], onScreen, shown, html: e.outerHTML.slice(0, 90) }};
}}"""

FOCUS_NAMED = f"""([scope, name]) => {{ {NAMES}
  names(scope ? document.querySelector(scope) : document).find(([, n]) => n === name)[0].focus();
}}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, browser_config: BrowserConfig) -> Iterator[LiveServer]:
    home = tmp_path_factory.mktemp("panel-keyboard")
    with serving(home, SCRIPTS, serve_config(home, browser_config, modules=["chrome"])) as live:
        yield live


async def _walk(page: Page, key: str, scope: str | None, presses: int, where: str) -> set[str]:
    """Press ``key`` enough times to go round the screen once; every control it lands on must be shown."""
    reached: set[str] = set()
    for _ in range(presses):
        await page.keyboard.press(key)
        focused = await page.evaluate(FOCUSED, scope)
        if focused is None:
            continue
        reached.add(focused["name"])
        assert focused["onScreen"], f"{where}: {key} focused a control off the screen: {focused['html']}"
        assert focused["shown"], f"{where}: {key} focused a covered control: {focused['html']}"
    return reached


async def reachable(page: Page, screen: str, scope: str | None = None) -> None:
    """Tab and Shift+Tab each reach every control of the screen (or of ``scope``), at both sizes."""
    for label, size in (("1280×800", DESKTOP), ("390×844", PHONE)):
        await page.set_viewport_size(size)
        controls: list[str] = await page.evaluate(CONTROLS, scope)
        assert len(controls) >= 2, f"{screen}: {controls}"
        where = f"{screen} at {label}"
        for key, start in (("Tab", controls[0]), ("Shift+Tab", controls[-1])):
            await page.evaluate(FOCUS_NAMED, [scope, start])
            reached = {start} | await _walk(page, key, scope, len(controls) + 3, where)
            missing = [c for c in controls if c not in reached]
            assert not missing, f"{where}: not reached with {key}: {missing}"
    await page.set_viewport_size(DESKTOP)


async def press_on(page: Page, selector: str, key: str) -> None:
    """Focus the control by keyboard's own means (focus()) and press ``key`` on it."""
    target = page.locator(selector)
    await target.focus()
    await expect(target).to_be_focused()
    await page.keyboard.press(key)


def finished_run(server: LiveServer, sites: SitesServer, tag: str) -> str:
    task = f"{tag} Find the mug"
    run = server.api("POST", "/api/runs", json={"task": task, "start_url": sites.url("/shop/")})
    return str(run["id"])


async def wait_finished(page: Page, server: LiveServer, run_id: str) -> None:
    """Follow the run in the panel until it succeeded (the list is refreshed when it ends), then the list."""
    await page.goto(f"{server.base}/#runs/{run_id}")
    await expect(page.locator(".run-head .badge")).to_have_text("success", timeout=90_000)
    await page.goto(f"{server.base}/#runs")
    await expect(page.locator(f'#run-list [data-run="{run_id}"] .badge')).to_have_text("success")


async def test_the_runs_list_the_new_run_form_and_a_running_run(
    page: Page, server: LiveServer, sites: SitesServer
) -> None:
    done = finished_run(server, sites, "[ok]")
    await wait_finished(page, server, done)
    await reachable(page, "runs list and new-run form")
    # the list is drawn anew while a card has the focus (as when a run moves on): the card keeps it
    card = page.locator(f'#run-list [data-run="{done}"] a')
    await card.focus()
    await page.evaluate("RunsView.refreshList()")
    await expect(card).to_be_focused()
    # the form is filled and sent from the keyboard: Enter on Start run
    await page.locator("#run-task").focus()
    await page.keyboard.type("[long] Scroll the shop")
    await page.keyboard.press("Tab")
    await expect(page.locator("#run-url")).to_be_focused()
    await page.keyboard.type(sites.url("/shop/"))
    await press_on(page, "#run-start", "Enter")
    await expect(page).to_have_url(re.compile(r"#runs/\w+$"))
    run_id = page.url.rsplit("/", 1)[1]
    await expect(page.locator(".run-head h2")).to_have_text("[long] Scroll the shop")
    # the running run: its live view and the model's thinking line (its next reply takes minutes)
    await expect(page.locator(".live")).to_have_attribute(
        "data-frames", re.compile(r"^[1-9]"), timeout=90_000
    )
    await expect(page.locator(".thinking")).to_be_visible(timeout=60_000)
    await reachable(page, "running run with its live view")
    await press_on(page, ".run-head button.danger", "Space")
    await expect(page.locator(".run-head .badge")).to_have_text("stopped", timeout=60_000)
    assert server.api("GET", f"/api/runs/{run_id}")["status"] == "stopped"


async def test_a_finished_run_its_replay_and_its_record(
    page: Page, server: LiveServer, sites: SitesServer
) -> None:
    run_id = finished_run(server, sites, "[done]")
    await wait_finished(page, server, run_id)
    card = f'#run-list [data-run="{run_id}"]'
    await press_on(page, f"{card} a", "Enter")
    await expect(page).to_have_url(re.compile(rf"#runs/{run_id}$"))
    await expect(page.locator(".run-head .badge")).to_have_text("success")
    await expect(page.locator(".steps .thumb a").first).to_be_attached()
    await reachable(page, "finished run")

    await press_on(page, ".run-head button:has-text('Replay')", "Enter")
    dialog = page.locator("dialog.replay")
    await expect(dialog).to_be_visible()
    slides = [s for s in server.api("GET", f"/api/runs/{run_id}")["steps"] if s["screenshot_url"]]
    assert len(slides) >= 2, slides
    last = len(slides)
    await expect(dialog.locator(".replay-count")).to_have_text(re.compile(rf"· 1 of {last}$"))
    await reachable(page, "replay", "dialog.replay")
    await press_on(page, "dialog.replay .replay-next", "Space")
    await expect(dialog.locator(".replay-count")).to_have_text(re.compile(rf"· 2 of {last}$"))
    await page.keyboard.press("Escape")
    await expect(dialog).to_be_hidden()

    await press_on(page, ".run-head button:has-text('Open record')", "Enter")
    record = page.locator("dialog.record")
    await expect(record).to_be_visible()
    await expect(record.locator(".record-files summary")).to_be_visible()
    await reachable(page, "record", "dialog.record")
    await page.keyboard.press("Escape")
    await expect(record).to_be_hidden()


async def test_the_tools_console_and_its_approval_card(
    page: Page, server: LiveServer, sites: SitesServer
) -> None:
    launched = server.api("POST", "/api/tools/chrome_launch", json={})
    tab = launched["tabId"]
    server.api("POST", "/api/tools/chrome_navigate", json={"tabId": tab, "url": sites.url("/shop/")})
    try:
        await page.goto(f"{server.base}/#tools/chrome_evaluate")
        await expect(page.locator("#tool-select")).to_have_value("chrome_evaluate")
        await reachable(page, "tools console")
        await page.locator("#tool-args").fill(f'{{"tabId": "{tab}", "script": "return 6 * 7"}}')
        await press_on(page, "#tool-call", "Enter")
        box = page.locator("#tool-confirms .confirm-box")
        await expect(box.locator("button.deny")).to_be_focused()
        await reachable(page, "tools console with its approval card")
        await press_on(page, "#tool-confirms button.approve", "Space")
        await expect(box).to_have_count(0)
        await expect(page.locator("#tool-output pre")).to_contain_text("42")
    finally:
        server.api("POST", "/api/tools/chrome_close", json={"browserId": launched["browserId"]})


async def test_settings_and_modules_and_the_sections(page: Page, server: LiveServer) -> None:
    await page.goto(f"{server.base}/#runs")
    await press_on(page, "nav a[href='#settings']", "Enter")
    await expect(page).to_have_url(re.compile("#settings$"))
    await expect(page.locator('#settings-list dd[data-key="Model"]')).to_have_text("kite/panel")
    await reachable(page, "settings")
    await press_on(page, "nav a[href='#modules']", "Enter")
    await expect(page.locator("#module-list .module-card").first).to_be_visible()
    await press_on(page, "#module-list [data-module='chrome'] .card-main", "Enter")
    await expect(page.locator(".chrome-module-panel")).to_be_visible()
    await reachable(page, "modules with the chrome panel")
