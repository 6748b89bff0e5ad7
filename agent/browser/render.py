"""The text the LLM sees: pure functions of the observation models.

Element line format (the prompts describe it)::

    [12] button "Place order"
    *[14] button "Close"                      (new since the previous snapshot)
    [5] input type=email placeholder="you@example.com" value="a@b.c"
    [7] link "Cart (2)" href=/shop/cart
    [8] input "Country" options="France|Germany|Italy" +12   (a datalist's first suggestions, how many more)
    [6] select "Sort by" value=Featured options="Featured|Price: low to high"   (a select's choices)
    [9] checkbox "Remember me" checked
    … 14 more below, 3 above (getElements visible=false lists them)
    … 140 more similar links

Under a token budget the element list degrades step by step: shorter names and hrefs, fewer attributes,
collapsed runs of similar elements, and finally a cut with a line saying how many were left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from kite_browser.agent.browser.observation import (
    Element,
    ElementDetails,
    Observation,
    PageSummary,
    role_word,
)
from kite_browser.agent.browser.tokens import count_tokens

__all__ = [
    "count_tokens",
    "element_line",
    "render_details",
    "render_elements",
    "render_observation",
    "render_summary",
    "role_word",
]

_IMPLIED_TYPES = {"text", "checkbox", "radio", "button", "submit", "reset", "image"}
_NEVER_COLLAPSE = {
    "input",
    "textarea",
    "select",
    "checkbox",
    "radio",
    "textbox",
    "searchbox",
    "combobox",
    "switch",
}
_BARE = re.compile(r'^[^\s"\']+$')


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _val(text: str) -> str:
    return text if _BARE.match(text) else _quote(text)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(limit - 1, 1)] + "…"


def _short_href(href: str, limit: int) -> str:
    if "://" in href:
        href = href.split("://", 1)[1]
        href = href[4:] if href.startswith("www.") else href
    if len(href) > limit and "?" in href:
        href = href.split("?", 1)[0] + "?…"
    return _cut(href, limit)


def _options(el: Element, keep: int) -> str:
    """A datalist's suggestions or a select's choices as one attribute: options="a|b|c" +N (N more not shown)."""
    shown = (el.options or [])[:keep]
    more = el.more_options + len(el.options or []) - len(shown)
    return f"options={_val('|'.join(shown))}" + (f" +{more}" if more else "")


def element_line(el: Element, *, name_chars: int = 60, href_chars: int = 60, level: int = 0) -> str:
    """One element as one line. ``level`` > 0 drops the less useful attributes."""
    parts = [f"{'*' if el.is_new else ''}[{el.index}] {role_word(el)}"]
    name = _cut(el.name, name_chars) if el.name else ""
    if name:
        parts.append(_quote(name))
    if el.tag in ("input", "label") and el.type and el.type not in _IMPLIED_TYPES:
        parts.append(f"type={_val(el.type)}")
    if el.placeholder and el.placeholder != el.name and not (level >= 2 and el.value):
        parts.append(f"placeholder={_val(_cut(el.placeholder, name_chars))}")
    if not name and not el.placeholder and (el.editable or role_word(el) in ("input", "textarea", "select")):
        ident = el.attrs.get("name") or el.attrs.get("id")
        if ident:
            parts.append(f"{'name' if 'name' in el.attrs else 'id'}={_val(_cut(ident, 30))}")
    elif not name and el.attrs.get("icon"):  # a nameless icon button or link: what its icon is called
        parts.append(f"icon={_val(el.attrs['icon'])}")
    elif not (name or el.placeholder or el.href) and el.attrs.get("class"):  # a nameless icon: class hints
        parts.append(f"class={_val(_cut(el.attrs['class'], 30))}")
    if el.value and el.value != el.name:
        parts.append(f"value={_val(_cut(el.value, name_chars))}")
    if el.options:
        parts.append(_options(el, 8 if level < 2 else 4))
    if el.href and not (level >= 2 and name):
        parts.append(f"href={_val(_short_href(el.href, href_chars))}")
    parts += _states(el)
    return " ".join(parts)


def _states(el: Element) -> list[str]:
    """The element's state words, in the order the line shows them."""
    flags = [("disabled", el.disabled), ("checked", el.checked), ("selected", el.selected)]
    words = [word for word, on in flags if on]
    if el.expanded is not None:
        words.append("expanded" if el.expanded else "collapsed")
    if el.aria_hidden:
        words.append("aria-hidden")
    if el.frame is not None:
        words.append(f"frame={el.frame}")
    return words


def _plural(word: str) -> str:
    return word + ("es" if word.endswith(("s", "x", "ch")) else "s")


def _collapse(elements: list[Element], lines: list[str], keep: int) -> list[str]:
    """Keep the first ``keep`` of each run of consecutive same-role elements; summarise the rest."""
    out: list[str] = []
    i = 0
    while i < len(elements):
        word = role_word(elements[i])
        j = i
        while j < len(elements) and role_word(elements[j]) == word:
            j += 1
        run = range(i, j)
        if word in _NEVER_COLLAPSE or len(run) <= keep + 1:
            out.extend(lines[k] for k in run)
        else:
            kept = [k for k in run if k < i + keep or elements[k].is_new]
            out.extend(lines[k] for k in kept)
            out.append(f"… {len(run) - len(kept)} more similar {_plural(word)}")
        i = j
    return out


# (name_chars, href_chars, attribute level, collapse keep) from richest to leanest.
_LEVELS: tuple[tuple[int, int, int, int | None], ...] = (
    (60, 48, 0, None),
    (40, 36, 1, None),
    (30, 30, 2, None),
    (30, 30, 2, 8),
    (24, 24, 2, 4),
    (20, 20, 2, 2),
)


def render_elements(elements: list[Element], *, budget_tokens: int | None = None) -> str:
    """The element list, one line each; within ``budget_tokens`` if given (degrading as described above)."""
    if not elements:
        return ""
    text = ""
    for name_chars, href_chars, level, keep in _LEVELS:
        lines = [element_line(e, name_chars=name_chars, href_chars=href_chars, level=level) for e in elements]
        if keep is not None:
            lines = _collapse(elements, lines, keep)
        text = "\n".join(lines)
        if budget_tokens is None or count_tokens(text) <= budget_tokens:
            return text
    return _cut_to_budget(text.split("\n"), budget_tokens or 0)


def _cut_to_budget(lines: list[str], budget: int) -> str:
    total = sum(len(x) + 1 for x in lines)
    ratio = total / max(count_tokens("\n".join(lines)), 1)  # characters per token on this text
    limit = budget * ratio
    while True:
        kept: list[str] = []
        used = 0
        for line in lines:
            if used + len(line) + 1 > limit:
                break
            kept.append(line)
            used += len(line) + 1
        left = len(lines) - len(kept)
        text = "\n".join([*kept, f"… {left} more elements not shown (token budget; getElements lists them)"])
        if count_tokens(text) <= budget or not kept:
            return text
        limit *= 0.9


MORE_HINT = "getElements visible=false lists them"
"""What the "N more below" line tells the model to do (a CLI shows its own flag instead)."""
LIST_HEADING = "Interactive elements:"


def _offscreen_line(summary: PageSummary, hint: str = MORE_HINT) -> str:
    parts = []
    if summary.below:
        parts.append(f"{summary.below} more below")
    if summary.above:
        parts.append(f"{summary.above} above")
    if not parts:
        return ""
    return f"… {', '.join(parts)} ({hint})"


def _counts(summary: PageSummary) -> str:
    c = summary.counts
    pairs = [
        (c.buttons, "button"),
        (c.inputs, "input"),
        (c.links, "link"),
        (c.selects, "select"),
        (c.images, "image"),
        (c.forms, "form"),
    ]
    return ", ".join(f"{n} {word if n == 1 else word + 's'}" for n, word in pairs)


def render_summary(summary: PageSummary, *, with_text: bool = True) -> str:
    """Layer 1: url, title, viewport, scroll, counts, focus, tabs, dialog, warnings and visible text."""
    vp, sc, ps = summary.viewport, summary.scroll, summary.page_size
    lines = [
        f"URL: {summary.url}",
        f"Title: {summary.title}",
        f"Viewport: {vp.get('width', 0)}x{vp.get('height', 0)}, scroll {sc.get('x', 0):.0f},{sc.get('y', 0):.0f}"
        f" of page {ps.get('width', 0):.0f}x{ps.get('height', 0):.0f}",
        f"Elements: {_counts(summary)}",
    ]
    if summary.focused is not None:
        lines.append(f"Focused: [{summary.focused}]")
    if len(summary.tabs) > 1:
        tabs = "; ".join(
            f"{t.index}{'*' if t.active else ''} {_quote(_cut(t.title, 40))} {_short_href(t.url, 60)}"
            for t in summary.tabs
        )
        lines.append(f"Tabs (* = active): {tabs}")
    if summary.dialog is not None:
        d = summary.dialog
        state = d.handled or "pending"
        lines.append(f"Dialog: {d.type} {_quote(_cut(d.message, 200))} ({state})")
    for w in summary.warnings:
        lines.append(f"Warning: {w}")
    if summary.visible_text and with_text:
        lines.append(f"Text: {summary.visible_text}")
    return "\n".join(lines)


def _filter(elements: Iterable[Element], kind: str, include_offscreen: bool) -> list[Element]:
    return [e for e in elements if (include_offscreen or e.in_viewport) and (kind == "all" or e.kind == kind)]


FLOW_HEADING = "Viewport in reading order ([N] = element to act on):"
# (characters per text line, characters of text in all) from richest to leanest; then no text at all.
_TEXT_LEVELS: tuple[tuple[int, int], ...] = ((200, 1400), (140, 1000), (100, 700), (80, 450), (60, 250))
_PAGE_ESCAPE = re.compile(r"^(\*?\[|… |# )")
_WORDY = re.compile(r"\w")


def _flow_lines(obs: Observation, line_chars: int, total: int, level: int) -> list[str]:
    by_index = {e.index: e for e in obs.elements if e.in_viewport}
    lines: list[str] = []
    used = 0
    placed: set[int] = set()
    flow = obs.flow
    for i, item in enumerate(flow):
        if isinstance(item, str) and names_neighbour(item, flow, i, by_index):
            continue  # a label that repeats its field's name
        if isinstance(item, int):
            el = by_index.get(item)
            if el is not None and item not in placed:
                placed.add(item)
                line = element_line(el, name_chars=60 - 15 * level, href_chars=48 - 12 * level, level=level)
                tail = obs.tails.get(item)
                if tail and used < total and _WORDY.search(tail) and _key(tail) != _key(el.name):
                    tail = _cut(tail, min(line_chars, total - used))
                    used += len(tail)
                    line += f" — {tail}"
                lines.append(line)
        elif used < total and _WORDY.search(item):
            text = _cut(item, min(line_chars, total - used))
            used += len(text)
            lines.append(_PAGE_ESCAPE.sub(r"\\\1", text))
    # elements the flow did not place (open shadow roots seen only by the extractor walk) come last
    lines += [element_line(e, level=level) for i, e in by_index.items() if i not in placed]
    return lines


def _key(text: str) -> str:
    return re.sub(r"[\W_]+", " ", text).strip().casefold()


def names_neighbour(text: str, flow: list[str | int], i: int, by_index: dict[int, Element]) -> bool:
    """The text ``flow[i]`` repeats the name of an element next to it (a field's label)."""
    key = _key(text)
    for j in (i - 1, i + 1):
        item = flow[j] if 0 <= j < len(flow) else None
        if isinstance(item, int) and item in by_index and key and _key(by_index[item].name) == key:
            return True
    return False


def render_flow(obs: Observation, *, budget_tokens: int | None = None) -> str:
    """The viewport in reading order: text lines with each element's line in its place, within the budget.

    Degrades by shortening and then dropping text, then falls back to the element list alone."""
    for line_chars, total in _TEXT_LEVELS:
        for level in (0, 1, 2):
            text = "\n".join(_flow_lines(obs, line_chars, total, level))
            if budget_tokens is None or count_tokens(text) <= budget_tokens:
                return text
    chosen = _filter(obs.elements, "all", False)
    return render_elements(chosen, budget_tokens=budget_tokens)


def render_observation(
    obs: Observation,
    *,
    budget_tokens: int | None = None,
    include_offscreen: bool = False,
    kind: str = "all",
    with_summary: bool = True,
    more_hint: str = MORE_HINT,
    list_heading: str = LIST_HEADING,
) -> str:
    """Summary (optional) + the viewport in reading order (text with each element in its place) or, for
    off-screen or per-kind listings and pages without a flow, the element list under ``list_heading``; + the
    "N more below" line, ending with ``more_hint``. The body stays within ``budget_tokens``."""
    chosen = _filter(obs.elements, kind, include_offscreen)
    flow = bool(obs.flow) and with_summary and not include_offscreen and kind == "all"
    if flow:
        body = render_flow(obs, budget_tokens=budget_tokens)
        parts = [render_summary(obs.summary, with_text=False), FLOW_HEADING + "\n" + body]
    else:
        body = render_elements(chosen, budget_tokens=budget_tokens) or "(no interactive elements in view)"
        parts = [render_summary(obs.summary)] if with_summary else []
        parts.append((list_heading + "\n" if with_summary else "") + body)
    if not include_offscreen:
        more = _offscreen_line(obs.summary, more_hint)
        if more:
            parts.append(more)
    return "\n".join(parts)


def render_details(details: list[ElementDetails]) -> str:
    """Layer 3: everything about each element, one block per element."""
    blocks = []
    for d in details:
        r = d.rect
        attrs = " ".join(f"{k}={_val(_cut(v, 120))}" for k, v in d.attributes.items())
        blocks.append(
            "\n".join(
                [
                    element_line(d),
                    f"  selector: {d.selector}",
                    f"  xpath: {d.xpath}",
                    f"  rect: x={r.x:.0f} y={r.y:.0f} width={r.width:.0f} height={r.height:.0f}"
                    f"{'' if d.in_viewport else ' (outside the viewport)'}",
                    f"  children: {d.child_count}",
                    f"  parent text: {_quote(d.parent_text)}",
                    f"  attributes: {attrs}",
                ]
            )
        )
    return "\n".join(blocks)
