"""Text answers of the MCP tools: the compact snapshot, an action's verified effects, and the diff of a
changed page against the last snapshot the client was sent (when that is smaller)."""

from __future__ import annotations

import json
from typing import Any

from agent.browser.observation import ActionResult, Element, Observation, PageSummary
from agent.browser.render import element_line
from agent.browser.tokens import count_tokens

TEXT_CHARS = 200
"""Visible text shown with a snapshot (the read tool gives the page's text in full)."""
NAME_CHARS = 40


def _matches(el: Element, query: str) -> bool:
    q = query.lower()
    fields = (el.name, el.value or "", el.attrs.get("placeholder", ""), el.href or "")
    return any(q in (f or "").lower() for f in fields)


def summary_text(s: PageSummary, *, text_chars: int = TEXT_CHARS) -> str:
    """The page in a few short lines: title and URL, scroll, focus, tabs, dialog, warnings, some text."""
    height = s.page_size.get("height", 0)
    lines = [f"Page: {s.title or '(no title)'} — {s.url}"]
    if height > s.viewport.get("height", 0) + 1:
        lines.append(f"Scroll: {s.scroll.get('y', 0):.0f} of {height:.0f}px")
    if s.focused is not None:
        lines.append(f"Focused: [{s.focused}]")
    if len(s.tabs) > 1:
        lines.append(
            "Tabs: " + "; ".join(f"{t.index}{'*' if t.active else ''} {t.title[:30]!r}" for t in s.tabs)
        )
    if s.dialog is not None:
        lines.append(f'Dialog: {s.dialog.type} "{s.dialog.message[:160]}" ({s.dialog.handled or "pending"})')
    lines += [f"Warning: {w}" for w in s.warnings]
    if s.visible_text:
        text = (
            s.visible_text
            if len(s.visible_text) <= text_chars
            else s.visible_text[:text_chars].rstrip() + " …"
        )
        lines.append(f"Text: {text}")
    return "\n".join(lines)


def element_lines(elements: list[Element]) -> dict[int, str]:
    """One line per element, compact (link targets only for nameless links); never collapsed or cut."""
    return {
        e.index: element_line(e, name_chars=NAME_CHARS, href_chars=40, level=2).lstrip("*") for e in elements
    }


def snapshot_text(
    obs: Observation, *, visible_only: bool = True, query: str | None = None
) -> tuple[str, dict[int, str]]:
    """The snapshot text and its element lines by index (what the client now knows)."""
    chosen = [e for e in obs.elements if e.in_viewport or not visible_only]
    if query:
        chosen = [e for e in chosen if _matches(e, query)]
    lines = element_lines(chosen)
    body = "\n".join(lines.values())
    if not body:
        body = f"(no interactive elements match {query!r})" if query else "(no interactive elements in view)"
    parts = [summary_text(obs.summary), "Elements:", body]
    s = obs.summary
    if visible_only and (s.below or s.above):
        more = ", ".join(
            p for p in (f"{s.below} below" if s.below else "", f"{s.above} above" if s.above else "") if p
        )
        parts.append(f"… {more} (visible_only=false lists them)")
    return "\n".join(parts), lines


def effects_text(result: ActionResult, *, changed: bool | None = None) -> str:
    """One short paragraph: what the action did and what it verifiably changed."""
    e = result.effects
    head = result.message or ("done" if result.ok else "failed")
    facts: list[str] = []
    if e.navigated and e.url_after and e.url_after not in head:
        facts.append(f"now at {e.url_after}")
    if e.new_tabs:
        facts.append("opened tab(s): " + ", ".join(e.new_tabs))
    if e.dialog is not None:
        facts.append(f'{e.dialog.type} dialog "{e.dialog.message[:120]}" was {e.dialog.handled}')
    if e.downloads:
        facts.append("downloaded: " + ", ".join(e.downloads))
    if e.value is not None:
        facts.append(f'field value is now "{e.value[:120]}"')
    if e.added or e.removed:
        facts.append(f"{e.added} element(s) appeared, {e.removed} disappeared")
    if e.scroll is not None:
        facts.append(f"scroll {e.scroll.get('x', 0):.0f},{e.scroll.get('y', 0):.0f}")
    if not (result.page_changed if changed is None else changed) and result.ok and not facts:
        facts.append("no interactive element changed")
    data = {k: v for k, v in result.data.items() if k not in ("settle_ms", "path", "base64")}
    if "result" in data:
        facts.append("result: " + json.dumps(data["result"], ensure_ascii=False)[:4000])
    return head.rstrip(".") + (". " + "; ".join(facts) + "." if facts else ".")


def diff_text(old: dict[int, str], new: dict[int, str]) -> str:
    """Element lines added (+) and removed (-) since ``old``; changed lines count as both."""
    added = [line for i, line in new.items() if old.get(i) != line]
    removed = [f"- [{i}]" for i, line in old.items() if new.get(i) != line and i not in new]
    lines = [f"+ {line}" for line in added] + removed
    return "\n".join(lines) if lines else "(no element changed)"


def page_update(
    obs: Observation, shown: dict[int, str] | None, shown_url: str | None, *, changed: bool = True
) -> tuple[str, dict[int, str]]:
    """The new snapshot, or a diff against what the client was last sent when that is fewer tokens, or ""
    when the client already has this page (same URL, same element lines) and the action changed nothing."""
    full, lines = snapshot_text(obs)
    if shown_url == obs.url and shown == lines:
        return "", lines
    if shown is None and not changed:
        return "", lines
    if shown is None or shown_url != obs.url:
        return "Page changed; new snapshot:\n" + full, lines
    diff = f"Page changed (same URL); elements since your last snapshot:\n{diff_text(shown, lines)}"
    if count_tokens(diff) < count_tokens(full):
        return diff, {**lines}
    return "Page changed; new snapshot:\n" + full, lines


def error_text(error: dict[str, Any]) -> str:
    return json.dumps(error, ensure_ascii=False)
