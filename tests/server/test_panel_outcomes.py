"""The panel's runs as a product, in a real browser against a live ``kite serve``: outcome badges (success,
failed, denied) in the list and the header with the answer under the title, search and filters, the replay
slideshow (← →), the live view and the "model is thinking" line while a run is on, and the list read back from
the records on disk after the server restarts, the day filter on the browser's own clock. Screenshots of each
screen at 1280×800 and 390×844 go to ``tmp_path`` (and to ``$KITE_PANEL_SHOTS`` when set, see ``snap``)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, BrowserContext, Page, Route, expect

from kite_browser.agent.config import BrowserConfig
from kite_browser.evals.sites import SitesServer
from tests.server.conftest import follow
from tests.server.panel_harness import LiveServer, panel_page, serve_config, serving, snap, start_server

# one server for the module (the restart test, last, restarts it): one xdist group
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("panel_outcomes"), pytest.mark.timeout(300)]
KEY_VALUE = "sk-panel-test-not-a-real-key"


def scripts(sites: SitesServer) -> dict[str, Any]:
    def done(success: bool, answer: str) -> dict[str, Any]:
        return {"name": "done", "arguments": {"success": success, "answer": answer}}

    return {
        "[ok]": {"replies": [{"name": "scroll", "arguments": {"direction": "down"}}, done(True, "$7.25")]},
        "[fail]": {"replies": [done(False, "There is no such mug.")]},
        "[deny]": {
            "replies": [
                {"name": "click", "arguments": {"selector": "#add-to-cart"}},
                {"name": "navigate", "arguments": {"url": sites.url("/shop/checkout")}},
                {"name": "click", "arguments": {"selector": "#place-order"}},
                done(True, "Ordered."),
            ]
        },
        "[over]": {
            "replies": [{"name": "scroll", "arguments": {"direction": "down"}}, done(True, "Seen.")],
            "delays": [0, 8],
        },
        "[r-ok]": {"replies": [{"name": "scroll", "arguments": {"direction": "down"}}, done(True, "$7.25")]},
        "[r-fail]": {"replies": [done(False, "There is no such mug.")]},
        "[r-deny]": {
            "replies": [
                {"name": "click", "arguments": {"selector": "#add-to-cart"}},
                {"name": "navigate", "arguments": {"url": sites.url("/shop/checkout")}},
                {"name": "click", "arguments": {"selector": "#place-order"}},
                done(True, "Ordered."),
            ]
        },
        "[day]": {"replies": [done(True, "Seen.")]},
        "[cache]": {
            "replies": [
                {"name": "type", "arguments": {"index": 5, "text": "mug"}},
                {"name": "pressKey", "arguments": {"key": "Enter"}},
                done(True, "searched"),
            ]
        },
        "[count]": {
            "replies": [{"name": "scroll", "arguments": {"direction": "down"}}] * 3
            + [done(True, "Counted.")],
            "delays": [0, 3, 3, 3],
        },
        "[live]": {
            "replies": [{"name": "scroll", "arguments": {"direction": "down"}}] * 2 + [done(True, "Seen.")],
            "delays": [0, 6, 6],
        },
    }


def _config(home: Path, browser_config: BrowserConfig) -> dict[str, Any]:
    return serve_config(home, browser_config, modules=["chrome"], safety={"blocked_domains": ["ads.example"]})


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("panel-outcomes")


@pytest.fixture(scope="module")
def server(home: Path, sites: SitesServer, browser_config: BrowserConfig) -> Iterator[LiveServer]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("OPENAI_API_KEY", KEY_VALUE)  # the settings page names the provider, never the value
        live = start_server(home, scripts(sites), _config(home, browser_config))
    try:
        yield live
    finally:
        live.stop()


def start(server: LiveServer, task: str, url: str) -> str:
    run = server.api("POST", "/api/runs", json={"task": task, "start_url": url, "max_steps": 6})
    assert "id" in run, run
    return str(run["id"])


async def test_a_replayed_run_says_so_and_the_model_calls_it_saved(
    page: Page, server: LiveServer, sites: SitesServer
) -> None:
    """A cached task's second run is a replay: its result card says so, with the model calls it saved."""
    body = {"task": "[cache] Search the shop for mug", "start_url": sites.url("/shop/"), "cache": True}
    first = server.api("POST", "/api/runs", json=body)["id"]
    await page.goto(f"{server.base}/#runs/{first}")
    await expect(page.locator(".run-head .badge")).to_have_text("success", timeout=90_000)
    await expect(page.locator(".result-card .replayed")).to_have_count(0)
    second = server.api("POST", "/api/runs", json=body)["id"]
    await page.goto(f"{server.base}/#runs/{second}")
    await expect(page.locator(".run-head .badge")).to_have_text("success", timeout=90_000)
    await expect(page.locator(".result-card .replayed")).to_have_text(
        "Replayed from a workflow: 2 of 2 steps with no model call; 0 model calls, 3 model calls saved"
    )


async def test_outcome_badges_caveats_and_the_answer_first(
    page: Page, server: LiveServer, sites: SitesServer, tmp_path: Path
) -> None:
    ok = start(server, "[ok] Find the cheapest blue mug", sites.url("/shop/"))
    fail = start(server, "[fail] Find the purple mug", sites.url("/shop/"))
    deny = start(server, "[deny] Place the order", sites.url("/shop/product/classic-blue-mug"))
    await page.goto(f"{server.base}/#runs/{deny}")
    box = page.locator(".confirm-box")
    await expect(box).to_be_visible(timeout=90_000)
    await box.get_by_role("button", name="Deny (n)").click()
    expected = {ok: "success", fail: "failed", deny: "denied"}
    await expect(page.locator(".run-head .badge")).to_have_text("denied", timeout=90_000)
    # the denial is told once, on the refused action's own line
    await expect(page.locator(".action.refused")).to_have_count(1)
    await expect(page.locator(".action.refused")).to_contain_text("Denied:")
    await expect(page.locator(".action.note.bad")).to_have_count(0)
    await expect(page.locator(".steps .action").filter(has_text="#place-order")).to_have_count(1)
    await expect(page.locator(".result-card")).to_contain_text("Not done:")
    # the model's claim is quoted as its own, not read as what happened ("Denied. Ordered.")
    answer = page.locator(".result-card .result-answer")
    await expect(answer).to_contain_text("Denied. The model said:")
    # the caveat is RunResult.caveat, the rule of the batch table and the eval reports, said once per place
    caveat = "⚠ the model claimed success, 1 action declined"
    await expect(page.locator(".result-card .caveat")).to_have_text(caveat)
    await expect(page.locator(f'#run-list [data-run="{deny}"] .card-caveat')).to_have_text(caveat)
    deny_view = server.api("GET", f"/api/runs/{deny}")
    assert deny_view["result"]["claimed_success"] and not deny_view["result"]["success"], deny_view["result"]
    assert deny_view["caveat"] == caveat.removeprefix("⚠ ") and deny_view["outcome"] == "denied"
    for run_id, outcome in expected.items():
        card = page.locator(f'#run-list [data-run="{run_id}"] .badge')
        await expect(card).to_have_text(outcome, timeout=90_000)
    await snap(page, tmp_path, "runs-denied")

    await page.goto(f"{server.base}/#runs/{ok}")
    await expect(page.locator(".run-head .badge")).to_have_text("success")
    await expect(page.locator(".result-card .caveat")).to_have_count(0)
    await expect(page.locator(f'#run-list [data-run="{ok}"] .card-caveat')).to_have_count(0)
    head_then_result = await page.evaluate(
        "() => { const h = document.querySelector('.run-head'); return h.nextElementSibling.textContent; }"
    )
    assert "$7.25" in head_then_result  # the answer sits right under the title, above the steps
    await expect(page.locator(".steps .step").first.locator("details.thought")).to_be_attached()
    await snap(page, tmp_path, "run-success")


def run_ids(server: LiveServer) -> dict[str, str]:
    """The module's runs by their task's tag: ``{"[ok]": id, ...}``."""
    return {r["task"].split()[0]: r["id"] for r in server.api("GET", "/api/runs")["runs"]}


async def test_search_filters_and_the_replay(page: Page, server: LiveServer, tmp_path: Path) -> None:
    ids = run_ids(server)  # the runs of the test above (same server: one xdist group)
    ok, fail, deny = ids["[ok]"], ids["[fail]"], ids["[deny]"]
    await page.goto(f"{server.base}/#runs/{ok}")
    await expect(page.locator(".run-head .badge")).to_have_text("success")
    # search over the task text, filters by outcome and model
    await page.fill("#runs-search", "purple")
    await expect(page.locator("#run-list .run-card")).to_have_count(1)
    await expect(page.locator(f'#run-list [data-run="{fail}"]')).to_be_visible()
    await snap(page, tmp_path, "runs-search")
    await page.fill("#runs-search", "")
    await page.select_option("#runs-outcome", "denied")
    await expect(page.locator("#run-list .run-card")).to_have_count(1)
    await expect(page.locator(f'#run-list [data-run="{deny}"]')).to_be_visible()
    await page.select_option("#runs-outcome", "")
    await expect(page.locator("#runs-model option[value='kite/panel']")).to_be_attached()
    await page.select_option("#runs-model", "kite/panel")
    panel_runs = [r for r in server.api("GET", "/api/runs", params={"model": "kite/panel"})["runs"]]
    assert {ok, fail, deny} <= {r["id"] for r in panel_runs}  # the module's other tests add runs of their own
    await expect(page.locator("#run-list .run-card")).to_have_count(len(panel_runs))
    await page.select_option("#runs-model", "")

    # the replay: each step's screenshot with the step beside it, ← → to move
    view = server.api("GET", f"/api/runs/{ok}")
    slides = [s for s in view["steps"] if s["screenshot_url"]]
    assert len(slides) >= 2, view["steps"]
    await page.get_by_role("button", name="Replay").click()
    dialog = page.locator("dialog.replay")
    await expect(dialog).to_be_visible()
    await expect(dialog.locator(".replay-count")).to_have_text(
        f"Step {slides[0]['step']} · 1 of {len(slides)}"
    )
    await expect(dialog.locator(".replay-shot")).to_have_attribute("src", re.compile("^blob:"))
    width = await dialog.locator(".replay-shot").evaluate(
        "(img) => img.decode().then(() => img.naturalWidth)"
    )
    assert width > 300
    await expect(dialog.locator(".replay-step")).to_contain_text(slides[0]["actions"][0]["action"])
    assert not slides[0]["thought"]  # a step without a thought shows none (it showed "null")
    await expect(dialog.locator(".replay-step")).not_to_contain_text("null")
    await snap(page, tmp_path, "run-replay")
    await page.keyboard.press("ArrowRight")
    await expect(dialog.locator(".replay-count")).to_have_text(
        f"Step {slides[1]['step']} · 2 of {len(slides)}"
    )
    await page.keyboard.press("ArrowLeft")
    await expect(dialog.locator(".replay-count")).to_have_text(
        f"Step {slides[0]['step']} · 1 of {len(slides)}"
    )
    await page.keyboard.press("Escape")
    await expect(dialog).to_be_hidden()


async def test_a_running_run_shows_its_page_live_and_that_the_model_is_thinking(
    page: Page, server: LiveServer, sites: SitesServer, tmp_path: Path
) -> None:
    run_id = start(server, "[live] Look at the shop", sites.url("/shop/"))
    await page.goto(f"{server.base}/#runs/{run_id}")
    live = page.locator(".live")
    await expect(live).to_be_visible(timeout=90_000)
    await expect(live).to_have_attribute("data-frames", re.compile(r"^[3-9]|\d\d"), timeout=60_000)
    first = await live.locator("img").get_attribute("src")
    await expect(live.locator("img")).not_to_have_attribute("src", first or "")  # new frames keep coming
    thinking = page.locator(".thinking")
    await expect(thinking).to_have_text(re.compile(r"^Model is thinking \([1-9]\d* s\)$"), timeout=60_000)
    await snap(page, tmp_path, "run-live")
    await expect(page.locator(".run-head .badge")).to_have_text("success", timeout=90_000)
    await expect(live).to_be_hidden()
    await expect(thinking).to_be_hidden()


COUNT_LIVE_CALLS = """
window.__liveCalls = 0;
const realFetch = window.fetch.bind(window);
window.fetch = (input, init) => {
  const url = typeof input === "string" ? input : input.url;
  if (/\\/api\\/runs\\/[^/]+\\/live$/.test(new URL(url, location.href).pathname)) window.__liveCalls += 1;
  return realFetch(input, init);
};
"""


async def test_the_live_view_stops_asking_once_the_run_is_over_and_shows_its_state(
    pw_browser: Browser, server: LiveServer, sites: SitesServer
) -> None:
    """The run's event stream is held back (as a buffering proxy would), so the panel learns that the run is
    over only from the live view's 409 not_running: it must stop asking and show the outcome it reads."""
    held: list[Route] = []

    async def hold(route: Route) -> None:
        held.append(route)  # never answered: the stream stays pending, as behind a buffering proxy

    async def setup(context: BrowserContext) -> None:
        await context.clock.install()
        await context.add_init_script(COUNT_LIVE_CALLS)
        await context.route(re.compile(r"/api/runs/[^/]+/events"), hold)

    async with panel_page(pw_browser, server, setup=setup) as (page, watch):
        run_id = start(server, "[over] Look at the shop", sites.url("/shop/"))
        await page.goto(f"{server.base}/#runs/{run_id}")
        live = page.locator(".live")
        await expect(live).to_have_attribute(
            "data-frames", re.compile(r"^[1-9]"), timeout=60_000
        )  # while it runs
        assert held, "the event stream was not held back"
        await expect(page.locator(".run-head .badge")).to_have_text("success", timeout=90_000)
        await expect(page.locator(".result-card")).to_contain_text("Seen.")
        await expect(live).to_be_hidden()
        await expect(live).to_have_attribute("data-state", "stopped")
        # ten more seconds of the page's timers: no more asking
        now = await page.evaluate("Date.now()")
        await page.clock.pause_at(now + 1000)
        await page.evaluate("() => { window.__ticks = 0; setInterval(() => (window.__ticks += 1), 1000); }")
        calls = await page.evaluate("window.__liveCalls")
        assert calls >= 2, calls
        await page.clock.run_for(10_000)
        assert await page.evaluate("window.__ticks") >= 9  # the timers did run
        assert await page.evaluate("window.__liveCalls") == calls
        watch.check()


SAME_COUNT = """(id) => {
  const card = document.querySelector(`#run-list [data-run="${id}"] .run-steps`);
  const steps = [...document.querySelectorAll(".steps .step")].map((s) => Number(s.dataset.step));
  const n = Math.max(0, ...steps);
  return !!card && card.textContent === `${n} step${n === 1 ? "" : "s"}`;
}"""


async def test_a_running_runs_card_counts_the_steps_its_page_shows(
    page: Page, server: LiveServer, sites: SitesServer
) -> None:
    """The list card of the run on screen counts the steps the run's page shows, from the same events: not
    from the list's own refresh, which lags (held back here, as a slow answer would be)."""
    run_id = start(server, "[count] Count the steps", sites.url("/shop/"))
    await page.goto(f"{server.base}/#runs/{run_id}")
    count = page.locator(f'#run-list [data-run="{run_id}"] .run-steps')
    await expect(count).to_be_visible()
    held: list[Route] = []

    async def hold(route: Route) -> None:
        held.append(route)

    await page.route(re.compile(r"/api/runs\?"), hold)
    try:
        drawn = int((await count.text_content() or "0").split()[0])
        boxes = await page.locator(".steps .step").count()
        later = max(drawn, boxes) + 1  # a step that comes after the list was last drawn
        await expect(page.locator(f'.steps .step[data-step="{later}"]')).to_be_visible()
        await page.wait_for_function(SAME_COUNT, arg=run_id)
    finally:
        await page.unroute(re.compile(r"/api/runs\?"))  # the held requests go on (unrouted: fallen back)
    follow(server.client, run_id)
    await expect(page.locator(".run-head .badge")).to_have_text("success")
    await page.wait_for_function(SAME_COUNT, arg=run_id)


async def test_a_tool_call_is_approved_from_the_tools_console(
    page: Page, server: LiveServer, sites: SitesServer, tmp_path: Path
) -> None:
    launched = server.api("POST", "/api/tools/chrome_launch", json={})
    tab = launched["tabId"]
    server.api("POST", "/api/tools/chrome_navigate", json={"tabId": tab, "url": sites.url("/shop/")})
    await page.goto(f"{server.base}/#tools/chrome_evaluate")
    await expect(page.locator("#tool-select")).to_have_value("chrome_evaluate")
    await page.locator("#tool-args").fill(f'{{"tabId": "{tab}", "script": "return 6 * 7"}}')
    await page.locator("#tool-call").click()
    box = page.locator("#tool-confirms .confirm-box")
    await expect(box).to_be_visible()
    # the call under the tool's own name (it is judged as executeJS, but nobody called that), on its tab's page
    await expect(box.locator(".confirm-reasons")).to_contain_text("chrome_evaluate")
    await expect(box.locator(".confirm-action")).to_have_text('chrome_evaluate code="return 6 * 7"')
    await expect(box).not_to_contain_text("executeJS")
    await expect(box.locator(".confirm-url")).to_have_text(sites.url("/shop/"))
    # the code names no element: no Target row (it said "(no element: -)")
    await expect(box.locator(".confirm-target")).to_have_count(0)
    await expect(box).not_to_contain_text("no element")
    await expect(box.locator("button.deny")).to_be_focused()
    await snap(page, tmp_path, "tool-approval")
    await box.get_by_role("button", name="Approve (y)").click()
    await expect(box).to_have_count(0)
    await expect(page.locator("#tool-status")).to_contain_text("ok")
    await expect(page.locator("#tool-output pre")).to_contain_text("42")
    server.api("POST", "/api/tools/chrome_close", json={"browserId": launched["browserId"]})


async def test_the_settings_page_names_providers_never_keys(
    page: Page, server: LiveServer, tmp_path: Path
) -> None:
    await page.goto(f"{server.base}/#settings")
    settings = page.locator("#settings-list")
    await expect(settings.locator('dd[data-key="Model"]')).to_have_text("kite/panel")
    await expect(settings.locator('dd[data-key="Providers with a key"]')).to_contain_text("openai")
    await expect(settings.locator('dd[data-key="Blocked domains"]')).to_have_text("ads.example")
    await expect(settings.locator('dd[data-key="Modules"]')).to_have_text("chrome")
    assert KEY_VALUE not in await page.content()
    assert KEY_VALUE not in json.dumps(server.api("GET", "/api/settings"))
    await snap(page, tmp_path, "settings")


async def test_the_day_filter_is_the_browsers_own_day(
    pw_browser: Browser, server: LiveServer, sites: SitesServer
) -> None:
    """Start times are UTC; the date input is the person's. On a clock whose day is not UTC's now (UTC+14 in
    the UTC afternoon, UTC-11 in its morning), a run of now is found under the local day, not the UTC one."""
    run_id = start(server, "[day] Look at the shop", sites.url("/shop/"))
    follow(server.client, run_id)
    created = server.api("GET", f"/api/runs/{run_id}")["created_at"]
    utc_hour = int(created[11:13])
    zone = "Pacific/Kiritimati" if utc_hour >= 10 else "Pacific/Pago_Pago"
    async with panel_page(pw_browser, server, timezone_id=zone) as (page, watch):
        await page.goto(f"{server.base}/#runs")
        local_day = await page.evaluate("(t) => new Date(t).toLocaleDateString('en-CA')", created)
        assert local_day != created[:10], (zone, created, local_day)  # the two clocks' days differ
        card = page.locator(f'#run-list [data-run="{run_id}"]')
        await expect(card).to_be_visible()
        await page.fill("#runs-date", created[:10])  # the UTC day: not this person's day of the run
        await expect(card).to_have_count(0)
        await page.fill("#runs-date", local_day)
        await expect(card).to_be_visible()
        await expect(card.locator(".badge")).to_have_text("success")
        watch.check()


async def test_the_list_is_read_from_the_records_after_a_restart(
    pw_browser: Browser,
    server: LiveServer,
    home: Path,
    sites: SitesServer,
    browser_config: BrowserConfig,
    tmp_path: Path,
) -> None:
    # its own runs, one of each outcome, each followed to its end (the denied one answered "deny")
    def deny(event: dict[str, Any], run_id: str) -> None:
        if event["event"] == "confirm":
            path = f"/api/runs/{run_id}/confirmations/{event['data']['id']}"
            server.api("POST", path, json={"decision": "deny"})

    for tag, url in (
        ("[r-ok]", "/shop/"),
        ("[r-fail]", "/shop/"),
        ("[r-deny]", "/shop/product/classic-blue-mug"),
    ):
        run_id = start(server, f"{tag} Restart me", sites.url(url))
        follow(server.client, run_id, on_event=lambda e, run_id=run_id: deny(e, run_id))
    listed = server.api("GET", "/api/runs")["runs"]  # two runs of the module may share a task's words
    before = {r["task"]: r["outcome"] for r in listed}
    mine = {t.split()[0]: o for t, o in before.items() if t.endswith("Restart me")}
    assert mine == {"[r-ok]": "success", "[r-fail]": "failed", "[r-deny]": "denied"}, before
    server.stop()
    with serving(home, scripts(sites), _config(home, browser_config)) as again:
        async with panel_page(pw_browser, again) as (page, watch):
            await page.goto(f"{again.base}/#runs")
            cards = page.locator("#run-list .run-card")
            await expect(cards).to_have_count(len(listed))
            for task, outcome in before.items():
                shown = cards.filter(has_text=task).locator(".badge")  # a task run twice has two cards
                await expect(shown).to_have_count(sum(r["task"] == task for r in listed))
                for badge in await shown.all():
                    await expect(badge).to_have_text(outcome)
            await cards.filter(has_text="[r-ok]").locator("a").click()
            await expect(page.locator(".run-head .badge")).to_have_text("success")
            # step 0 (the start URL) has no screenshot in the record: no empty thumbnail box
            await expect(page.locator('.steps .step[data-step="0"]')).to_be_visible()
            await expect(page.locator('.steps .step[data-step="0"] .thumb')).to_have_count(0)
            await expect(page.locator(".result-card")).to_contain_text("$7.25")
            await expect(page.locator(".steps .step")).not_to_have_count(0)
            await expect(page.locator(".steps .thumb img").first).to_have_attribute(
                "src", re.compile("^blob:")
            )
            await snap(page, tmp_path, "runs-after-restart")
            watch.check()
