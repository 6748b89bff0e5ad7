"""The reader (agent/browser/reader.py) and the read action: main content as Markdown across frames, links with
their indexes, paginated under a token budget, and a find-in-page query; read-only and never confirmed."""

from __future__ import annotations

import re

from playwright.async_api import Page

from kite_browser.agent.browser.actions import parse_action
from kite_browser.agent.browser.reader import read_page
from kite_browser.agent.browser.snapshot import Snapshotter
from kite_browser.agent.config import SafetyConfig
from kite_browser.evals.sites import SitesServer
from kite_browser.safety.policy import ConfirmLevel, SafetyPolicy
from tests.browser.action_pages.harness import Kite, kite  # noqa: F401


async def test_policy_page_reads_as_markdown_in_pages(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/help/returns"))
    whole = await read_page(page, Snapshotter(), budget_tokens=5000)
    md = whole.markdown
    assert whole.pages == 1 and md.startswith("# Shipping and returns policy")
    assert "## Returns" in md and "- Standard shipping takes 3 to 5 working days." in md
    assert "| Lamps | 14 days | Full refund, minus return shipping |" in md  # a table as rows
    assert "2. Print the prepaid label." in md
    assert "Kite Shop" not in md.splitlines()[0]  # the site header is chrome, not content
    small = [await read_page(page, budget_tokens=250, page_number=n) for n in (1, 2)]
    assert small[0].pages >= 3 and small[0].tokens <= 250 and small[1].page == 2
    assert small[0].markdown != small[1].markdown and small[1].markdown in md
    assert "read page=2" in small[0].text()
    last = await read_page(page, budget_tokens=250, page_number=99)
    assert last.page == last.pages and last.warnings


async def test_query_returns_only_matching_passages(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/help/returns"))
    res = await read_page(page, query="return an item")
    assert "You have 30 days from the day of delivery to return an item" in res.markdown
    assert res.markdown.startswith("## Returns") and res.matches == 2  # the paragraph and the list step
    assert "Standard shipping" not in res.markdown
    # nothing matches word for word ("zebra"; "cost" where the page says "Price"): the main content, saying so
    none = await read_page(page, query="zebra")
    assert none.matches == 0 and "You have 30 days from the day of delivery" in none.markdown
    assert none.warnings == ["nothing matches 'zebra' word for word: the page's main content follows"]


async def test_a_query_naming_a_section_brings_its_first_paragraphs(page: Page, sites: SitesServer) -> None:
    """ "returns" matches the page's title and the Returns heading: the Returns heading comes with the start of
    its section (the answer), the title, followed at once by another heading, alone."""
    await page.goto(sites.url("/help/returns"))
    lines = (await read_page(page, query="returns")).markdown.splitlines()
    assert lines[0] == "# Shipping and returns policy" and lines[1] == "## Returns", lines
    assert any(line.startswith("You have 30 days from the day of delivery") for line in lines), lines
    assert not any("Print the prepaid label" in line for line in lines)  # the section's tail is left out
    assert not any(line.startswith("## About this policy") for line in lines)


async def test_links_carry_the_indexes_actions_take(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/shop/"))
    snap = Snapshotter()
    res = await read_page(page, snap)
    m = re.search(r"\[Black Floor Lamp\]\[#(\d+)\]", res.markdown)
    assert m, res.markdown
    target = await snap.resolve(page, int(m.group(1)))
    assert await target.handle.get_attribute("href") == "/shop/product/black-floor-lamp"


async def test_frames_are_read_in_place(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/frames/"))
    md = (await read_page(page)).markdown.splitlines()
    assert md.index("Your name") > md.index("## Same-origin iframe")  # the iframe's own text, in its place


async def test_read_action_is_read_only_and_auto(kite: Kite, sites: SitesServer) -> None:  # noqa: F811
    await kite.goto(sites.url("/help/returns"))
    res = await kite.act(action="read", query="return an item")
    assert res.ok and res.method == "reader", res
    assert "30 days" in res.data["text"] and res.data["read"]["matches"] == 2
    assert not res.page_changed and res.effects.url_after in (None, kite.page.url)
    obs = kite.snap.last(kite.page)
    policy = SafetyPolicy.from_config(SafetyConfig())
    assert policy.evaluate(parse_action({"action": "read"}), obs).level == ConfirmLevel.AUTO
