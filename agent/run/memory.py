"""The run's memory as the model sees it: the last few steps in full, older steps one line each.

Kite rebuilds the prompt every step from this memory plus the current page (only the current page is ever
shown in full), so the prompt stays bounded however long the run is. ``compaction`` levels let the planner
shrink it further when the model's input budget is tight.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from kite_browser.agent.base.fence import defuse, fence
from kite_browser.agent.browser.observation import ActionResult, Element
from kite_browser.agent.browser.render import role_word

MAX_LINE = 240
_PLAIN_METHODS = frozenset({"mouse", "keyboard", "none", "select_option"})


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _Described(Protocol):
    def to_json(self) -> Mapping[str, object]: ...


def describe_action(action: _Described | Mapping[str, object], element: Element | None = None) -> str:
    """A compact, readable form of an action: ``click [12] button "Add to cart"``."""
    data = dict(action if isinstance(action, Mapping) else action.to_json())
    name = data.pop("action", "?")
    index = data.pop("index", None)
    parts = [str(name)]
    if index is not None:
        parts.append(f"[{index}]")
        if element is not None:
            role = role_word(element)
            parts.append(f'{role} "{_clip(element.name, 40)}"' if element.name else role)
    for key in ("mouse_button", "double", "full_page", "visible"):
        if data.get(key) in (False, "left", None):
            data.pop(key, None)
    if data.get("append") is False:  # type replaces by default
        data.pop("append")
    if data.get("modifiers") == []:
        data.pop("modifiers")
    if data:
        parts.append(" ".join(f"{k}={_short_value(v)}" for k, v in data.items()))
    return " ".join(parts)


def _short_value(value: object) -> str:
    if isinstance(value, str):
        return '"' + _clip(value, 60) + '"'
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{v}" for k, v in value.items() if v is not None) + "}"
    return str(value)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _same(text: str) -> str:
    return text


def describe_result(result: ActionResult, *, full: bool = True, fenced: bool = False) -> str:
    """What an action did, for the model: ok/error, the method, and what changed. ``fenced`` (the prompt's
    form): page content quoted in it (a dialog's message, the text ``read`` or ``getElements`` returned) is
    wrapped in ``<untrusted_page>``, and any fence tag a page wrote (in a URL, a file name, a message) is
    defused."""
    q = defuse if fenced else _same
    if not result.ok and result.error is not None:
        text = f"error {result.error.error}: {result.error.message}"
        return q(_clip(text, 1200 if full else 160))
    bits = ["ok"]
    if result.method and result.method not in _PLAIN_METHODS:  # a fallback the model may want to know of
        bits[0] = f"ok ({result.method})"
    e = result.effects
    if e.navigated and e.url_after:
        bits.append(q(f"now at {e.url_after}"))
    elif e.url_after and e.url_before and e.url_after != e.url_before:
        bits.append(q(f"URL {e.url_before} → {e.url_after}"))
    if e.new_tabs:
        bits.append(q("new tab: " + ", ".join(e.new_tabs)))
    if e.dialog is not None:
        message = _clip(e.dialog.message, 80)
        quoted = f"<untrusted_page>{defuse(message)}</untrusted_page>" if fenced else f'"{message}"'
        bits.append(
            f"{e.dialog.type} dialog {quoted} ({e.dialog.handled or 'pending'}"
            + (f": {q(e.dialog.reason)})" if e.dialog.reason else ")")
        )
    if e.downloads:
        bits.append(q("downloaded: " + ", ".join(e.downloads)))
    for notice in e.download_notices:
        bits.append(q(f"{notice.type}: {notice.message}"))
    if e.value is not None:
        bits.append(q(f'value now "{_clip(e.value, 80)}"'))
    if e.added or e.removed:
        bits.append(f"{_count(e.added, 'element')} added, {e.removed} removed")
    if e.new_in_view:
        bits.append(f"{_count(e.new_in_view, 'element')} came into view")
    if result.message and full:
        bits.append(q(_clip(result.message, 300)))
    text = "; ".join(bits)
    extra = result.data.get("text") if full else None
    if isinstance(extra, str) and extra:
        text += "\n" + (fence(extra) if fenced else extra)
    return text


def add_note(result: ActionResult, note: str) -> None:
    """Put Kite's note about how it read the action (fields ignored, names mapped) into its result."""
    if not note:
        return
    note = f"note: Kite {note}"
    if result.error is not None:
        result.error.message = f"{note}; {result.error.message}"
    else:
        result.message = f"{note}; {result.message}" if result.message else note


@dataclass
class StepMemory:
    step: int
    url: str
    lines: list[str] = field(default_factory=list)
    """One entry per action (or error) of the step: 'action → outcome' in full."""
    short: list[str] = field(default_factory=list)
    """The same, compacted."""
    targets: list[int | None] = field(default_factory=list)
    """The element index each line's action targeted, if any."""


@dataclass
class Memory:
    full_steps: int = 3
    steps: list[StepMemory] = field(default_factory=list)

    def begin(self, step: int, url: str) -> StepMemory:
        mem = StepMemory(step=step, url=url)
        self.steps.append(mem)
        return mem

    def add(self, line: str, short: str | None = None, target: int | None = None) -> None:
        self.steps[-1].lines.append(line)
        self.steps[-1].short.append(_clip(short or line, MAX_LINE))
        self.steps[-1].targets.append(target)

    def render(self, compaction: int = 0, live: set[int] | None = None) -> tuple[list[str], list[str]]:
        """(history lines, last-step result lines). Higher ``compaction`` keeps less.

        ``live`` is the set of indexes in the current page: a line whose target is no longer there loses its
        index (a small model copies the old page's indexes from its own past actions)."""
        done = [_unindexed(mem, live) for mem in self.steps if mem.lines]  # in progress: no lines yet
        if not done:
            return [], []
        *older, last = done
        keep_full = max(0, self.full_steps - 1 - compaction)
        keep_lines = (None, 20, 6, 0)[min(compaction, 3)]
        history: list[str] = []
        cutoff = len(older) - keep_full
        for i, mem in enumerate(older):
            if i >= cutoff:
                history.extend(f"{mem.step}. {line}" for line in mem.lines)
            else:
                history.append(f"{mem.step}. " + " | ".join(mem.short))
        if keep_lines is not None and len(history) > keep_lines:
            dropped = len(history) - keep_lines
            history = [f"({dropped} earlier lines omitted)", *history[-keep_lines:]] if keep_lines else []
        results = last.lines if compaction < 3 else last.short
        return history, list(results)


GONE = "(no longer on the page)"


_REF = re.compile(r"\[(\d+(?:,\d+)*)\] ?|\[#(\d+)\]")
"""An element reference in a line: ``[12] ``, ``[533,534] `` (look-alikes), ``[#12]`` (a link in ``read``'s text)."""


def _drop_gone_refs(text: str, live: set[int]) -> str:
    """``text`` without the element references whose indexes are all gone from the page (the element's role
    and name, next to them, stay)."""

    def keep(m: re.Match[str]) -> str:
        found = m.group(1) or m.group(2)
        return m.group(0) if any(int(n) in live for n in found.split(",")) else ""

    return _REF.sub(keep, text) if "[" in text else text


def _unindexed(mem: StepMemory, live: set[int] | None) -> StepMemory:
    """``mem`` with every index that is not in ``live`` taken out (the action's target, and the indexes an
    earlier result listed: a stale error's element list, ``read``'s links); the line of an action whose target
    is gone says so."""
    if live is None:
        return mem

    def fix(line: str, target: int | None) -> str:
        if target is None or target in live:
            return _drop_gone_refs(line, live)
        head, arrow, tail = line.partition(" → ")
        if f"[{target}] " not in head:
            return _drop_gone_refs(line, live)
        return _drop_gone_refs(head, live) + f" {GONE}" + arrow + _drop_gone_refs(tail, live)

    return StepMemory(
        step=mem.step,
        url=mem.url,
        lines=[fix(x, t) for x, t in zip(mem.lines, mem.targets, strict=True)],
        short=[fix(x, t) for x, t in zip(mem.short, mem.targets, strict=True)],
        targets=mem.targets,
    )
