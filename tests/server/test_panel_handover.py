"""The panel's hand-over in a real browser against a live ``kite serve``: a run's askHuman shows the question,
the live view turns interactive — the person's click on the picture lands on the run's page (the product goes
into the cart on the shop's server), their typing reaches the focused field — and Done gives the browser back;
what they typed is in no event."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.async_api import Browser, Page, expect

from kite_browser.agent.config import BrowserConfig
from kite_browser.evals.sites import SitesServer
from tests.server.panel_harness import DESKTOP, LiveServer, serve_config, serving

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("panel-handover"), pytest.mark.timeout(300)]

TYPED = "2"
SCRIPTS: dict[str, Any] = {
    "[otp]": {
        "replies": [
            {"name": "askHuman", "arguments": {"question": "Put the mug in the cart for me"}},
            {"name": "done", "arguments": {"success": True, "answer": "the person did it"}},
        ]
    }
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, browser_config: BrowserConfig) -> Iterator[LiveServer]:
    home = tmp_path_factory.mktemp("handover-serve")
    with serving(home, SCRIPTS, serve_config(home, browser_config, modules=[])) as live:
        yield live


async def _where(browser: Browser, url: str, selector: str) -> tuple[float, float]:
    """Where ``selector`` sits on ``url`` at the run's viewport (the bundled default, 1280×800), as fractions."""
    context = await browser.new_context(viewport=DESKTOP)
    try:
        probe = await context.new_page()
        await probe.goto(url)
        box = await probe.locator(selector).bounding_box()
        assert box is not None
        return (box["x"] + box["width"] / 2) / DESKTOP["width"], (box["y"] + box["height"] / 2) / DESKTOP[
            "height"
        ]
    finally:
        await context.close()


async def test_the_person_takes_the_wheel_in_the_panel(
    page: Page, server: LiveServer, sites: SitesServer, pw_browser: Browser
) -> None:
    product = sites.url("/shop/product/classic-blue-mug")
    before = {sid: list(s["cart"]) for sid, s in sites.states().items()}
    await page.goto(f"{server.base}/#runs")
    await page.fill("#run-task", "[otp] Put the blue mug in the cart")
    await page.fill("#run-url", product)
    await page.click("#run-start")
    box = page.locator(".handover-box")
    await expect(box).to_be_visible(timeout=90_000)
    await expect(box.locator(".handover-question")).to_have_text("Put the mug in the cart for me")
    live = page.locator(".live.interactive img")
    await expect(live).to_have_attribute("src", re.compile("^blob:"), timeout=30_000)
    await live.evaluate("(img) => img.decode()")

    async def click_on_picture(fx: float, fy: float) -> None:
        """A click on the live view where the page's (fx, fy) is drawn (the picture keeps its proportions)."""
        shown = await live.bounding_box()
        assert shown is not None
        ratio, natural = await live.evaluate(
            "(img) => [Math.min(img.clientWidth / img.naturalWidth, img.clientHeight / img.naturalHeight),"
            " [img.naturalWidth, img.naturalHeight]]"
        )
        w, h = natural[0] * ratio, natural[1] * ratio
        await page.mouse.click(shown["x"] + (shown["width"] - w) / 2 + fx * w, shown["y"] + fy * h)
        await expect(box.locator("[role=status]")).to_have_text("Clicked.")

    # the person sets the quantity to 2 (click the field, Backspace, type), then clicks Add to cart on the picture
    await click_on_picture(*await _where(pw_browser, product, "#qty"))
    await box.get_by_role("button", name="Backspace").click()
    await expect(box.locator("[role=status]")).to_have_text("Pressed Backspace.")
    await box.locator(".handover-text").fill(TYPED)
    await box.get_by_role("button", name="Type").click()
    await expect(box.locator("[role=status]")).to_have_text("Typed.")
    await click_on_picture(*await _where(pw_browser, product, "#add-to-cart"))

    def added() -> bool:
        return any(
            [(i["product_id"], i.get("qty")) for i in s["cart"]]
            != [(i["product_id"], i.get("qty")) for i in before.get(sid, [])]
            for sid, s in sites.states().items()
        )

    deadline = time.monotonic() + 30
    while not added() and time.monotonic() < deadline:
        await page.wait_for_timeout(200)  # polling the shop's server state, not a guess at a delay
    assert added(), "the person's click on the live view did not reach the page"
    carts = [s["cart"] for s in sites.states().values()]
    assert any(i["product_id"] == "classic-blue-mug" and i.get("qty") == 2 for c in carts for i in c), carts

    await box.get_by_role("button", name="Done").click()
    await expect(box).to_have_count(0)
    await expect(page.locator(".run-head .badge")).to_have_text("success", timeout=60_000)
    run_id = page.url.rsplit("/", 1)[1]
    record = json.dumps(server.api("GET", f"/api/runs/{run_id}/record"))
    events = json.dumps(server.api("GET", f"/api/runs/{run_id}"))
    assert '"text": "2"' not in events, "what the person typed is in an event"
    assert '"handed_back": true' in record, "the record says a person had the browser"
    late = server.client.post(f"/api/runs/{run_id}/input", json={"kind": "press", "key": "Enter"})
    assert late.status_code == 409 and late.json()["error"] == "no_handover", late.text
