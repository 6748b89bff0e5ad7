"""Text answers of the MCP tools: the compact snapshot, an action's verified effects, and the diff of a
changed page against the last snapshot the client was sent (when that is smaller)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from kite_browser.agent.base.jsontypes import JsonObject
from kite_browser.agent.browser.observation import ActionResult, Element, Observation
from kite_browser.agent.browser.render import element_line, names_neighbour
from kite_browser.agent.browser.tokens import count_tokens

TEXT_CHARS = 200
"""The page's own text shown with a snapshot by default, in all (``max_text`` asks for more; the read tool
gives the page's text in full)."""
MAX_TEXT_CHARS = 20000
"""The most page text a snapshot's ``max_text`` may ask for."""
LINE_CHARS = 80
"""... and per text line."""
NAME_CHARS = 40
_WORDY = re.compile(r"\w")
_AT = re.compile(r" at \(-?\d+, -?\d+\)")
_LOOKS_LISTED = re.compile(r"^(\[|… )")


def _matches(el: Element, query: str) -> bool:
    q = query.lower()
    fields = (el.name, el.value or "", el.attrs.get("placeholder", ""), el.href or "")
    return any(q in (f or "").lower() for f in fields)


def _cut_text(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[:chars].rstrip() + " …"


def cut_notice(chars: int) -> str:
    """What a snapshot that left out page text says (and how to get the rest)."""
    more = min(max(chars * 10, 2000), MAX_TEXT_CHARS)
    return (
        f"(page text cut at {chars} characters: read gives the whole text, "
        f"or snapshot with max_text={more} shows more here)"
    )


def summary_text(obs: Observation, *, with_text: bool = True, max_text: int = TEXT_CHARS) -> str:
    """The page in a few short lines: title and URL, scroll (when not at the top), focus, tabs, dialog,
    warnings, and (``with_text``, for pages without a reading-order flow) the start of the visible text."""
    s = obs.summary
    lines = [f"Page: {s.title or '(no title)'} — {s.url}"]
    if s.scroll.get("y", 0) >= 1:
        lines.append(f"Scrolled: {s.scroll.get('y', 0):.0f} of {s.page_size.get('height', 0):.0f}px")
    if s.focused is not None:
        lines.append(f"Focused: [{s.focused}]")
    if len(s.tabs) > 1:
        lines.append(
            "Tabs: " + "; ".join(f"{t.index}{'*' if t.active else ''} {t.title[:30]!r}" for t in s.tabs)
        )
    if s.dialog is not None:
        lines.append(f'Dialog: {s.dialog.type} "{s.dialog.message[:160]}" ({s.dialog.handled or "pending"})')
    lines += [f"Warning: {w}" for w in s.warnings]
    if with_text and s.visible_text:
        lines.append(f"Text: {_cut_text(s.visible_text, max_text)}")
        if len(s.visible_text) > max_text:
            lines.append(cut_notice(max_text))
    return "\n".join(lines)


_FLAGS = ("disabled", "checked", "selected", "expanded", "collapsed", "aria-hidden")
_LAST_NAME = re.compile(r'^(\[\d+\] \S+) "([^"\\=]+)"$')


def _unquoted(line: str) -> str:
    """``[N] role name`` when the name ends the line (nothing can be read as part of it); quotes stay when
    attributes follow, and around a name with quotes, ``=``, edge spaces or a last word like ``checked``."""
    m = _LAST_NAME.match(line)
    if m is None:
        return line
    name = m.group(2)
    if name != name.strip() or name.rsplit(" ", 1)[-1] in _FLAGS:
        return line
    return f"{m.group(1)} {name}"


def element_lines(elements: list[Element]) -> dict[int, str]:
    """One line per element, compact (link targets only for nameless links); never collapsed or cut."""
    return {
        e.index: _unquoted(element_line(e, name_chars=NAME_CHARS, href_chars=40, level=2).lstrip("*"))
        for e in elements
    }


def joined(items: list[tuple[int | None, str]]) -> list[str]:
    """Element lines (index, line) and text lines (None, text) in order; a run of neighbouring elements
    that read the same (a picture link and its text link to one place) is one line naming every ref:
    ``[533,534] link "seating"``."""
    out: list[tuple[list[int] | None, str]] = []
    for index, line in items:
        if index is None:
            out.append((None, line))
            continue
        body = line.split("] ", 1)[1] if "] " in line else line
        last = out[-1] if out else None
        if last is not None and last[0] is not None and last[1] == body:
            last[0].append(index)
        else:
            out.append(([index], body))
    return [f"[{','.join(map(str, refs))}] {body}" if refs is not None else body for refs, body in out]


FOLD_MARK = "(cut by the fold)"
"""What the line of a card cut by the fold ends with."""


def fold_notice(count: int) -> str:
    """The line under a snapshot whose last cards are cut by the fold (and how to read them whole)."""
    cards = "1 card" if count == 1 else f"{count} cards"
    return f"({cards} cut by the fold: scroll down, or snapshot with visible_only=false, to read them whole)"


def cut_by_fold(obs: Observation) -> set[int]:
    """The in-view elements whose card goes on below the viewport: the last elements of the view's flow, of the
    role and tag of an earlier element that has its card's text on its line (a result's price) while they have
    none (or only punctuation, the part of the card in view), on a page that goes on below (a grid's last row cut by the fold lists its names without prices)."""
    s = obs.summary
    if s.scroll.get("y", 0) + s.viewport.get("height", 0) >= s.page_size.get("height", 0) - 1:
        return set()
    by_index = {e.index: e for e in obs.elements}
    worded = {i for i, tail in obs.tails.items() if _WORDY.search(tail)}
    kinds = {(by_index[i].role, by_index[i].tag) for i in worded if i in by_index}
    cut: set[int] = set()
    for item in reversed(obs.flow):
        if not isinstance(item, int):
            if _WORDY.search(item):
                break
            continue
        el = by_index.get(item)
        if el is None or item in worded or (el.role, el.tag) not in kinds:
            break
        cut.add(item)
    return cut


def _flow(
    obs: Observation, lines: dict[int, str], max_text: int = TEXT_CHARS
) -> tuple[list[tuple[int | None, str]], bool]:
    """The page in reading order: each element's line in its place, with the page's own text between them
    (up to ``max_text`` characters; not the labels that repeat their field's name, which the element line
    says), and whether text was left out."""
    by_index = {e.index: e for e in obs.elements if e.index in lines}
    items: list[tuple[int | None, str]] = []
    placed: set[int] = set()
    used, cut = 0, False
    folded = cut_by_fold(obs)
    line_chars = max(LINE_CHARS, min(max_text // 10, 400))
    for i, item in enumerate(obs.flow):
        if isinstance(item, int):
            if item in lines and item not in placed:
                placed.add(item)
                tail = obs.tails.get(item, "")
                tail = tail if _WORDY.search(tail) else ""
                if tail and used < max_text:  # its list item's or row's text, on its line
                    tail = _cut_text(" ".join(tail.split()), min(line_chars, max_text - used))
                    used += len(tail)
                    items.append((item, f"{lines[item]} — {tail}"))
                elif item in folded:
                    items.append((item, f"{lines[item]} — {FOLD_MARK}"))
                else:
                    cut = cut or bool(tail)
                    items.append((item, lines[item]))
        elif _WORDY.search(item) and not names_neighbour(item, obs.flow, i, by_index):
            if used >= max_text:
                cut = True
                continue
            whole = " ".join(item.split())
            text = _cut_text(whole, min(line_chars, max_text - used))
            cut = cut or text != whole
            used += len(text)
            items.append((None, _LOOKS_LISTED.sub(r"\\\1", text)))
    return items + [(i, line) for i, line in lines.items() if i not in placed], cut  # outside the flow: last


def snapshot_text(
    obs: Observation,
    *,
    visible_only: bool = True,
    query: str | None = None,
    max_text: int = TEXT_CHARS,
) -> tuple[str, dict[int, str]]:
    """The snapshot text and its element lines by index (what the client now knows). The viewport (the
    default), or the whole page (``visible_only=false``, from a whole-page flow), reads in page order, the
    page's own text between the element lines (``max_text`` characters; a line says when text was left
    out); a query lists only the matching elements."""
    chosen = [e for e in obs.elements if e.in_viewport or not visible_only]
    if query:
        chosen = [e for e in chosen if _matches(e, query)]
    lines = element_lines(chosen)
    in_flow = not query and bool(obs.flow)
    cut = False
    items: list[tuple[int | None, str]] = [*lines.items()]
    if in_flow:
        items, cut = _flow(obs, lines, max_text)
    body = "\n".join(joined(items))
    if not lines:
        none = f"(no interactive elements match {query!r})" if query else "(no interactive elements in view)"
        body = f"{body}\n{none}" if body else none
    if cut:
        body = f"{body}\n{cut_notice(max_text)}"
    folded = len(cut_by_fold(obs).intersection(lines)) if in_flow else 0
    if folded:
        body = f"{body}\n{fold_notice(folded)}"
    with_text = visible_only and not query and not in_flow
    parts = [summary_text(obs, with_text=with_text, max_text=max_text), body]
    s = obs.summary
    if visible_only and (s.below or s.above):
        more = ", ".join(
            p for p in (f"{s.below} below" if s.below else "", f"{s.above} above" if s.above else "") if p
        )
        parts.append(f"… {more} (visible_only=false lists them)")
    return "\n".join(parts), lines


UNSENT_DATA = ("settle_ms", "path", "base64")
"""An action's payload a client is not sent: timings, a file's path on Kite's machine, an image's bytes."""


def effects_text(
    result: ActionResult, *, changed: bool | None = None, listed: bool = False, page_url: str | None = None
) -> str:
    """One short paragraph: what the action did and what it verifiably changed. ``listed``: the answer goes
    on with the changed elements (a diff or a snapshot), so their counts are left out; ``page_url``: it goes
    on with a snapshot whose first line names this URL, so the effects do not repeat it."""
    e = result.effects
    head = _AT.sub("", result.message or ("done" if result.ok else "failed"))
    if page_url:
        head = re.sub(rf"\s+(?:to\s+)?{re.escape(page_url)}", "", head)
    facts: list[str] = []
    if e.navigated and e.url_after and e.url_after not in head and e.url_after != page_url:
        facts.append(f"now at {e.url_after}")
    if e.new_tabs:
        facts.append("opened tab(s): " + ", ".join(e.new_tabs))
    if e.dialog is not None:
        facts.append(f'{e.dialog.type} dialog "{e.dialog.message[:120]}" was {e.dialog.handled}')
    if e.downloads:
        facts.append("downloaded: " + ", ".join(e.downloads))
    facts += [f"{n.type}: {n.message}" for n in e.download_notices]
    if e.value is not None:
        facts.append(f'field value is now "{e.value[:120]}"')
    if (e.added or e.removed) and not listed:
        facts.append(f"{e.added} element(s) appeared, {e.removed} disappeared")
    if e.scroll is not None:
        facts.append(f"scroll {e.scroll.get('x', 0):.0f},{e.scroll.get('y', 0):.0f}")
    if not (result.page_changed if changed is None else changed) and result.ok and not facts:
        facts.append("no interactive element changed")
    data = {k: v for k, v in result.data.items() if k not in UNSENT_DATA}
    if "result" in data:
        facts.append("result: " + json.dumps(data["result"], ensure_ascii=False)[:4000])
    return head.rstrip(".") + (". " + "; ".join(facts) + "." if facts else ".")


def _ranges(indexes: list[int]) -> str:
    """``[3-5] [9]`` for 3, 4, 5, 9."""
    out: list[list[int]] = []
    for i in sorted(indexes):
        if out and i == out[-1][1] + 1:
            out[-1][1] = i
        else:
            out.append([i, i])
    return " ".join(f"[{a}]" if a == b else f"[{a}-{b}]" for a, b in out)


DIFF_HEAD = "Since your last snapshot (same page):"


def diff_text(old: dict[int, str], new: dict[int, str]) -> str:
    """Element lines added or changed (+) and refs no longer listed (-) since ``old``."""
    added: list[tuple[int | None, str]] = [(i, line) for i, line in new.items() if old.get(i) != line]
    removed = [i for i in old if i not in new]
    lines = [f"+ {line}" for line in joined(added)]
    if removed:
        lines.append(f"- {_ranges(removed)}")
    return "\n".join(lines) if lines else "(no element changed)"


@dataclass
class Update:
    """What an action's answer adds after its effects: "" (the client has this page), a diff, or the page."""

    text: str
    lines: dict[int, str]
    page_url: str | None = None
    """Set when ``text`` is a full snapshot (its first line names this URL)."""


def page_update(
    obs: Observation, shown: dict[int, str] | None, shown_url: str | None, *, changed: bool = True
) -> Update:
    """The new snapshot, or a diff against what the client was last sent when that is fewer tokens, or ""
    when the client already has this page (same URL, same element lines) and the action changed nothing."""
    full, lines = snapshot_text(obs)
    if (shown_url == obs.url and shown == lines) or (shown is None and not changed):
        return Update("", lines)
    if shown is not None and shown_url == obs.url:
        diff = f"{DIFF_HEAD}\n{diff_text(shown, lines)}"
        if count_tokens(diff) < count_tokens(full):
            return Update(diff, lines)
    return Update(full, lines, page_url=obs.url)


def error_text(error: JsonObject) -> str:
    return json.dumps(error, ensure_ascii=False)
