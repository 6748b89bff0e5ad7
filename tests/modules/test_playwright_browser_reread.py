"""The playwright_browser tool reads the page after a click; a navigation that starts after the settle replaces
the document while it is read. The read waits for the new document instead of failing with ``content_failed``
(seen in CI: the shop's "Add to cart" answered "Execution context was destroyed")."""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import Page

from kite_browser.agent.modules.playwright_browser.abstract import page_content

# the page loads itself again 15 ms after each load, ten times, then stays: reads made meanwhile race navigations
RELOADING = """<button>Go</button><p id="n"></p><script>
const n = Number(new URLSearchParams(location.search).get("n") || 0);
document.getElementById("n").textContent = "load " + n;
if (n < 10) setTimeout(() => { location.search = "?n=" + (n + 1); }, 15);
</script>"""


async def test_a_read_during_a_navigation_reads_the_new_document(page: Page, tmp_path: Path) -> None:
    path = tmp_path / "reloading.html"
    path.write_text(RELOADING, encoding="utf-8")
    await page.goto(path.as_uri())
    texts = [await page_content(page, "click", "abstract", 5) for _ in range(25)]
    texts += [await page_content(page, "click", "html", 5) for _ in range(5)]
    assert all("action: click" in t for t in texts[:25])
    await page.wait_for_function("document.getElementById('n').textContent === 'load 10'")
    assert "load 10" in await page_content(page, "click", "abstract", 5)
