"""The ``abstract`` content mode: a page's interactive controls (each with a selector) and its text, in a plain
greppable format (seed 004)::

    action: navigate
    url: http://127.0.0.1:8000/shop/
    title: Shop
    time: 2026-01-01 12:00:00

    === interactive controls ===

    [link] Cart -> a[href="/shop/cart"]
      href: /shop/cart
    [input] Search -> #q
      type: search
    [select] Country -> select[name="country"]
      options: France, Japan
    [checkbox] Remember me -> #remember
      checked: false

    === page text ===
    ...
"""

from __future__ import annotations

import contextlib
import time
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

EXTRACT_JS = Path(__file__).with_name("abstract.js").read_text(encoding="utf-8")
MAX_TEXT_CHARS = 20_000


async def page_abstract(page: Page, action: str) -> str:
    data: dict[str, Any] = await page.evaluate(EXTRACT_JS)
    return render(action, page.url, await page.title(), data)


async def page_content(page: Page, action: str, mode: Literal["html", "abstract"], timeout_s: float) -> str:
    """The page's HTML (``mode`` "html") or its abstract. A click's navigation can start after the settle has
    returned and replace the document while it is read ("Execution context was destroyed"): the read then waits
    for the new document and reads that one, again until ``timeout_s`` has passed. The budget is time, not a
    count of attempts: on a slow machine one read can outlast several navigations of a busy page."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return await page.content() if mode == "html" else await page_abstract(page, action)
        except PlaywrightError as exc:
            left = deadline - time.monotonic()
            if left <= 0 or not _replaced(exc):
                raise
            with contextlib.suppress(PlaywrightError):
                await page.wait_for_load_state("domcontentloaded", timeout=left * 1000)


def _replaced(exc: PlaywrightError) -> bool:
    text = str(exc)
    return "context was destroyed" in text or "navigating" in text.lower()


def render(action: str, url: str, title: str, data: dict[str, Any]) -> str:
    lines = [
        f"action: {action}",
        f"url: {url}",
        f"title: {title}",
        f"time: {datetime.now():%Y-%m-%d %H:%M:%S}",
        "",
        "=== interactive controls ===",
        "",
    ]
    for c in data.get("controls", []):
        lines.append(f"[{c['kind']}] {c.get('name') or '(unnamed)'} -> {c['selector']}")
        if c.get("href") is not None:
            lines.append(f"  href: {c['href']}")
        if "type" in c:
            lines.append(f"  type: {c['type']}")
        if c.get("value"):
            lines.append(f"  value: {c['value']}")
        if "options" in c:
            lines.append(f"  options: {', '.join(c['options'])}")
        if "checked" in c:
            lines.append(f"  checked: {'true' if c['checked'] else 'false'}")
        if c.get("disabled"):
            lines.append("  disabled: true")
    text = str(data.get("text") or "").strip()
    if len(text) > MAX_TEXT_CHARS:
        text = text[:MAX_TEXT_CHARS] + "\n[... text cut]"
    lines += ["", "=== page text ===", "", text, ""]
    return "\n".join(lines)
