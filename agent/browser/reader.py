"""Reading a page: its main content as compact Markdown, across frames, paginated under a token budget.

``read_page`` is the one entry point (the ``read`` action, the MCP server and the tool modules call it)::

    result = await read_page(page, snapshotter, query="return", page_number=1, budget_tokens=1200)
    result.markdown   # "# Returns\\n- You have 30 days ...\\n[Contact us][#41]"

Headings are ``#`` lines, list items ``-``/``1.`` lines, table rows ``| a | b |`` lines, links
``[text][#N]`` where ``N`` is the element index the other actions take (links the snapshot has indexed).
With ``query`` only the passages containing the query's words are returned, each under its nearest heading
(a find-in-page); a heading that matches brings the first blocks of its section. Read-only: nothing on the page is changed.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page
from pydantic import BaseModel, ConfigDict, Field

from kite_browser.agent.browser.extractor_call import call_extractor, id_of_frame
from kite_browser.agent.browser.snapshot import Snapshotter
from kite_browser.agent.browser.tokens import count_tokens
from kite_browser.agent.browser.world import world_of

READER_JS = Path(__file__).with_name("reader.js").read_text(encoding="utf-8")
_FRAME_TIMEOUT_S = 5.0
_WORD = re.compile(r"\w+", re.UNICODE)


class ReadResult(BaseModel):
    """One page of a read: Markdown plus where it sits in the whole."""

    model_config = ConfigDict(extra="forbid")

    url: str
    title: str = ""
    markdown: str = ""
    page: int = 1
    """This page's number (1-based)."""
    pages: int = 1
    """How many pages the content (or the matching passages) fills under the token budget."""
    query: str | None = None
    matches: int | None = None
    """With a query: how many passages matched (all pages)."""
    tokens: int = 0
    warnings: list[str] = Field(default_factory=list)

    def text(self) -> str:
        """The result as the model sees it: a header line, then the Markdown."""
        head = f"Read {self.url} (page {self.page} of {self.pages}"
        if self.query is not None:
            head += f"; {self.matches} passages match {self.query!r}"
        head += ")"
        more = f"\n(more: read page={self.page + 1})" if self.page < self.pages else ""
        return f"{head}\n{self.markdown or '(nothing to read)'}{more}"


@dataclass
class _Block:
    kind: str
    text: str
    level: int = 0
    heading: str = ""


async def _blocks(frame: Frame, by_key: dict[tuple[str, int], int], depth: int = 0) -> list[_Block]:
    """The frame's blocks (child frames spliced in at their iframe), links rewritten to global indexes."""
    await call_extractor(frame, {"fn": "token"})  # install the extractor: links get local ids
    data: dict[str, Any] = await asyncio.wait_for(
        world_of(frame.page).call(frame, READER_JS, {}), _FRAME_TIMEOUT_S
    )
    token = data.get("token")
    children: dict[int, Frame] = {}
    if depth < 4:
        for child in frame.child_frames:
            try:
                place = await id_of_frame(child)
            except PlaywrightError:
                continue
            if place is not None:
                children[place[1]] = child

    def link(m: re.Match[str]) -> str:
        index = by_key.get((str(token), int(m.group(2))))
        return f"[{m.group(1)}][#{index}]" if index is not None else m.group(1)

    out: list[_Block] = []
    for b in data.get("blocks", []):
        if b["t"] == "frame":
            inner = children.get(int(b["id"]))
            if inner is not None and not inner.is_detached():
                try:
                    out.extend(await _blocks(inner, by_key, depth + 1))
                except (TimeoutError, PlaywrightError):
                    continue
            continue
        text = re.sub(r"\[([^\[\]]*)\]\[#(\d+)\]", link, b["text"])
        text = re.sub(r"\s+([.,;:!?])", r"\1", re.sub(r"\s+", " ", text)).strip()
        if b["t"] == "h":
            out.append(_Block("h", f"{'#' * int(b.get('level', 2))} {text}", int(b.get("level", 2))))
        elif b["t"] == "li":
            indent = "  " * min(int(b.get("depth", 0)), 4)
            out.append(_Block("li", f"{indent}{b.get('marker', '-')} {text}"))
        elif b["t"] == "q":
            out.append(_Block("p", f"> {text}"))
        else:
            out.append(_Block(b["t"], text))
    return out


def _with_headings(blocks: list[_Block]) -> list[_Block]:
    current = ""
    for b in blocks:
        if b.kind == "h":
            current = b.text
        b.heading = current
    return blocks


def _matching(blocks: list[_Block], query: str) -> list[_Block]:
    """Blocks holding every word of the query (else any word, ranked by how many), under their heading."""
    words = [w.casefold() for w in _WORD.findall(query)]
    if not words:
        return []
    scored = []
    for i, b in enumerate(blocks):
        hay = (b.text + " " + (b.heading if b.kind != "h" else "")).casefold()
        hits = sum(1 for w in words if w in hay)
        own = sum(1 for w in words if w in b.text.casefold())
        if own:
            scored.append((hits, i, b))
    best = max((s[0] for s in scored), default=0)
    if best == 0:
        return []
    chosen = {i for hits, i, _ in scored if hits == best} if best == len(words) else {i for _, i, _ in scored}
    for i in sorted(chosen):
        if blocks[i].kind == "h":
            chosen.update(_section(blocks, i))
    keep = [blocks[i] for i in sorted(chosen)]
    out: list[_Block] = []
    shown: str | None = None
    for b in keep:
        if b.heading and b.heading != shown and b.kind != "h":
            out.append(_Block("h", b.heading))
        shown = b.heading if b.kind != "h" else b.text
        out.append(b)
    return out


SECTION_BLOCKS = 4
"""A matching heading brings the first blocks of its section with it: a query that names a section ("returns")
finds its heading, and the answer sits in the paragraphs under it, which the heading alone would leave out."""


def _section(blocks: list[_Block], i: int) -> range:
    """The blocks under heading ``i`` up to the next heading, at most ``SECTION_BLOCKS``."""
    end = i + 1
    while end < len(blocks) and end - i <= SECTION_BLOCKS and blocks[end].kind != "h":
        end += 1
    return range(i + 1, end)


def _paginate(lines: list[str], budget: int) -> list[list[str]]:
    """Greedy pages of whole lines within ``budget`` tokens (a line longer than a page is cut)."""
    pages: list[list[str]] = [[]]
    used = 0
    for line in lines:
        n = count_tokens(line) + 1
        if n > budget:
            line = line[: budget * 3] + "…"
            n = count_tokens(line) + 1
        if used + n > budget and pages[-1]:
            pages.append([])
            used = 0
        pages[-1].append(line)
        used += n
    return pages


def _pages(lines: list[str], budget_tokens: int, page_number: int) -> tuple[list[list[str]], int]:
    """The pages of ``lines`` and the tokens of the one shown (``page_number``, clamped)."""
    pages = _paginate(lines, max(budget_tokens, 100))
    shown = pages[min(max(page_number, 1), len(pages)) - 1]
    return pages, count_tokens("\n".join(shown))


async def read_page(
    page: Page,
    snapshotter: Snapshotter | None = None,
    *,
    query: str | None = None,
    page_number: int = 1,
    budget_tokens: int = 1200,
) -> ReadResult:
    """The main content of ``page`` (all frames) as Markdown, page ``page_number`` under ``budget_tokens``.

    With a ``snapshotter``, every element of the page is indexed first so that links show the indexes the
    other actions take. ``query`` returns only the passages that contain its words; when none does (a
    synonym: "cost" on a page that says "Price"), the whole main content, with a warning saying so."""
    warnings: list[str] = []
    by_key: dict[tuple[str, int], int] = {}
    if snapshotter is not None:
        await snapshotter.snapshot(page, include_all=True)
        by_key = snapshotter.index_keys(page)
    try:
        blocks = await _blocks(page.main_frame, by_key)
    except TimeoutError:
        blocks, warnings = [], ["the page did not answer in time"]
    blocks = _with_headings(blocks)
    matches = None
    if query is not None and query.strip():
        found = _matching(blocks, query)
        matches = sum(1 for b in found if b.kind != "h") or len(found)
        if found:
            blocks = found
        else:  # "cost" on a page that says "Price": the main content, rather than nothing
            warnings.append(f"nothing matches {query!r} word for word: the page's main content follows")
    else:
        query = None
    # Token counting is CPU work (and its first call loads the tokenizer): off the event loop, so that a
    # long page does not freeze the other callers (the MCP server's other sessions) meanwhile.
    pages, tokens = await asyncio.to_thread(_pages, [b.text for b in blocks], budget_tokens, page_number)
    number = min(max(page_number, 1), len(pages))
    if page_number > len(pages):
        warnings.append(f"there are only {len(pages)} pages; showing page {number}")
    markdown = "\n".join(pages[number - 1])
    try:
        title = await page.title()
    except PlaywrightError:
        title = ""
    return ReadResult(
        url=page.url,
        title=title,
        markdown=markdown,
        page=number,
        pages=len(pages),
        query=query,
        matches=matches,
        tokens=tokens,
        warnings=warnings,
    )
