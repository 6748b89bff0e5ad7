"""What ``kite mcp`` offers and says by default, through the SDK's own client: Kite's browser tools only (their
definitions within 3,000 tokens), a snapshot that says when it cut the page's text, ``visible_only=false``
with the text, a ``stale_element`` answer with the page as a snapshot, the ``evaluate`` question showing the
code under the tool's name, the refusal when the client cannot ask, and the record under Kite's data dir."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import Client

from kite_browser.agent.browser.tokens import count_tokens
from kite_browser.agent.mcp.app import kite_mcp
from kite_browser.agent.mcp.tools import TOOLS
from kite_browser.evals.sites import SitesServer
from kite_browser.evals.sites.catalog import PRODUCTS
from tests.mcp.conftest import error_of, ref, text_of
from tests.mcp.scenarios import Answers

CUT = "page text cut at 200 characters: read gives the whole text, or snapshot with max_text="


def _prices(text: str) -> set[str]:
    return set(re.findall(r"\$\d+\.\d\d", text))


ALL_PRICES = {f"${p.price:.2f}" for p in PRODUCTS}


async def _definition_tokens(config: Any) -> tuple[list[types.Tool], int]:
    async with kite_mcp(config) as kite, Client(kite.server, mode="legacy") as c:
        tools = (await c.list_tools()).tools
    definitions = json.dumps([t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools])
    return tools, count_tokens(definitions)


async def test_default_tools_are_kites_own_within_3000_tokens_plus_compact_output_schemas(
    kite_config: Any,
) -> None:
    """The text-only definitions stay within 3,000 tokens; the compact outputSchemas (the default) add at
    most 1,200 (14 data tools), the whole schemas (``mcp.output_schemas: full``) far more."""
    tools, compact = await _definition_tokens(kite_config())
    assert [t.name for t in tools] == list(TOOLS)  # no module's tools unless --module or mcp.modules
    bare_tools, bare = await _definition_tokens(kite_config(**{"mcp.output_schemas": "none"}))
    _, full = await _definition_tokens(kite_config(**{"mcp.output_schemas": "full"}))
    assert not any(t.output_schema for t in bare_tools)
    assert bare <= 3000 and compact - bare <= 1200 and full > compact + 5000


async def test_modules_are_offered_when_named(kite_config: Any) -> None:
    async with kite_mcp(kite_config(**{"mcp.modules": ["javascript"]})) as kite:
        async with Client(kite.server, mode="legacy") as c:
            names = [t.name for t in (await c.list_tools()).tools]
    assert names == [*TOOLS, "run_javascript"]


async def test_snapshot_says_when_it_cut_the_text_and_gives_more_when_asked(
    kite_config: Any, sites: SitesServer
) -> None:
    async with kite_mcp(kite_config()) as kite, Client(kite.server, mode="legacy") as c:
        await c.call_tool("navigate", {"url": sites.url("/shop/")})
        short = text_of(await c.call_tool("snapshot", {}))
        longer = text_of(await c.call_tool("snapshot", {"max_text": 3000}))
        whole = text_of(await c.call_tool("snapshot", {"visible_only": False, "max_text": 3000}))
        bare = text_of(await c.call_tool("snapshot", {"visible_only": False}))
    assert CUT in short and not ALL_PRICES <= _prices(short)  # cut, and it says so
    assert CUT not in longer and "page text cut" not in longer
    # the whole page lists every product with its price in its place (visible_only=false had no text)
    assert ALL_PRICES <= _prices(whole), sorted(ALL_PRICES - _prices(whole))
    assert "page text cut" not in whole
    classic = ref(whole, "link", "Classic Blue Mug")
    assert re.search(rf"^\[{classic}\] link Classic Blue Mug — blue · \$12\.99$", whole, re.M), (
        whole
    )  # one line
    assert "blue · $12.99" in bare and "page text cut at 200 characters" in bare


async def test_a_card_cut_by_the_fold_says_so_instead_of_losing_its_price(
    kite_config: Any, sites: SitesServer
) -> None:
    async with kite_mcp(kite_config()) as kite, Client(kite.server, mode="legacy") as c:
        await c.call_tool("navigate", {"url": sites.url("/shop/")})
        longer = text_of(await c.call_tool("snapshot", {"max_text": 3000}))
    product_lines = [line for line in longer.splitlines() if any(f"link {p.name}" in line for p in PRODUCTS)]
    assert product_lines, longer
    # every product line in view has its price, or says its card goes on below the fold
    bare = [line for line in product_lines if not _prices(line) and "(cut by the fold)" not in line]
    assert not bare, bare
    folded = [line for line in product_lines if "(cut by the fold)" in line]
    assert folded, longer  # the shop's grid at 1280x800 cuts its last row
    assert f"({len(folded)} card{'s' if len(folded) > 1 else ''} cut by the fold:" in longer


async def test_stale_ref_answers_the_current_page_as_a_snapshot(kite_config: Any, sites: SitesServer) -> None:
    async with kite_mcp(kite_config()) as kite, Client(kite.server, mode="legacy") as c:
        home = text_of(await c.call_tool("navigate", {"url": sites.url("/shop/")}))
        await c.call_tool("click", {"ref": ref(home, "link", "Log in")})
        answer = await c.call_tool("click", {"ref": ref(home, "link", "Red Enamel Mug")})
    stale = error_of(answer)
    assert stale["error"] == "stale_element" and "elements" not in stale
    assert "fresh snapshot below" in stale["message"]
    page = stale["page"]
    assert page.startswith("<untrusted_page>\nPage: Log in — ") and "\\n" not in page
    ref(page, "button", "Log in")  # the snapshot's own lines, refs usable at once


async def test_evaluate_question_shows_the_code_under_the_tools_name(
    kite_config: Any, sites: SitesServer
) -> None:
    answers = Answers(True, True)
    code = "const total = [...document.querySelectorAll('a')].length;\nreturn total * 2;"
    long_code = "return " + " + ".join(str(i) for i in range(400)) + ";"
    async with kite_mcp(kite_config()) as kite:
        async with Client(kite.server, mode="legacy", elicitation_callback=answers) as c:
            await c.call_tool("navigate", {"url": sites.url("/shop/")})
            ok = await c.call_tool("evaluate", {"code": code})
            await c.call_tool("evaluate", {"code": long_code})
    assert not ok.is_error, text_of(ok)
    asked, asked_long = answers.messages
    assert asked.startswith("Kite asks to run evaluate at http://") and "executeJS" not in asked
    assert code in asked and asked.endswith("Allow it?")
    assert long_code not in asked_long and long_code[:200] in asked_long
    assert re.search(r"… \(\d+ more characters\)", asked_long)


async def test_a_client_that_cannot_ask_is_told_how_to_allow(kite_config: Any, sites: SitesServer) -> None:
    async with kite_mcp(kite_config()) as kite, Client(kite.server, mode="legacy") as c:
        await c.call_tool("navigate", {"url": sites.url("/shop/")})
        refused = error_of(await c.call_tool("evaluate", {"code": "return 1"}))
    assert refused["error"] == "refused"
    assert refused["message"].startswith(
        "refused: this client cannot ask for confirmation; allow with --approve evaluate"
    )
    assert "declined" not in refused["message"]
    async with kite_mcp(kite_config(**{"safety.approve": ["evaluate"]})) as kite:
        async with Client(kite.server, mode="legacy") as c:
            await c.call_tool("navigate", {"url": sites.url("/shop/")})
            allowed = await c.call_tool("evaluate", {"code": "return 6 * 7"})
    assert not allowed.is_error and "42" in text_of(allowed)


async def test_record_goes_under_the_data_dir_unless_runs_dir(kite_config: Any, tmp_path: Path) -> None:
    home = tmp_path / "home"
    config = kite_config(**{"browser.data_dir": str(home)})
    config = config.model_copy(update={"mcp": config.mcp.model_copy(update={"runs_dir": None})})
    async with kite_mcp(config) as kite:
        pass
    assert kite.record.path.is_file() and kite.record.run_dir.parent == home / "mcp"
    async with kite_mcp(kite_config(**{"mcp.runs_dir": str(tmp_path / "elsewhere")})) as kite:
        pass
    assert kite.record.run_dir.parent == tmp_path / "elsewhere"
