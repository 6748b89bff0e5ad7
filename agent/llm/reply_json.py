"""Finding the JSON in a model's reply text for ``agent.llm.parsing``: valid JSON after each fence, then at each
brace of the prose; failing that, repaired JSON (``json_repair``) from fenced blocks, tool-call tags and the
text after the first brace, within a per-reply work budget (``repair_budget``) so no reply can stall Kite."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import cast

import json_repair

from kite_browser.agent.base.jsontypes import JsonObject, JsonValue
from kite_browser.agent.browser.actions import ACTION_NAMES
from kite_browser.agent.llm.reply_text import fenced_blocks

_MAX_SCANS = 200
# json_repair costs about (length x open brackets) on malformed input: "{" * 5 + "a" * 10_000 takes a second,
# "{" * 100_000 a minute. Only pieces under this estimate are repaired, and a reply spends at most
# REPAIR_BUDGET on repair overall (about 0.3 s on a slow machine); the rest must be valid JSON.
_MAX_REPAIR_COST = 10_000
REPAIR_BUDGET = 16_000
_MAX_REPAIR_PIECES = 8
_budget: ContextVar[list[int]] = ContextVar("kite_repair_budget")
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n?")
_TOOL_TAG = re.compile(
    r"<(?:tool_call|function_call|action)>(.*?)(?:</(?:tool_call|function_call|action)>|\Z)", re.S
)
_BRACE = re.compile(r"[\[{]")
_SPACE = re.compile(r"\s*")
_DECODER = json.JSONDecoder()
NORMALISED_NAMES = {re.sub(r"[_\-\s]", "", n).lower(): n for n in ACTION_NAMES}
"""Each action's name without ``_``, ``-``, spaces and case -> the name (``press_key`` reads as pressKey)."""


def normalised(name: str) -> str:
    return re.sub(r"[_\-\s]", "", name).lower()


@contextmanager
def repair_budget() -> Iterator[list[int]]:
    """The repair budget of one reply: ``[units left]``, shared by every repair made while it is open."""
    token = _budget.set(left := [REPAIR_BUDGET])
    try:
        yield left
    finally:
        _budget.reset(token)


def spend_repair(piece: str) -> bool:
    """Whether ``piece`` may be given to json_repair (its cost is then taken from the reply's budget)."""
    cost = len(piece) * (1 + piece.count("{") + piece.count("["))
    left = _budget.get(None)
    if cost > _MAX_REPAIR_COST or (left is not None and cost > left[0]):
        return False
    if left is not None:
        left[0] -= cost
    return True


def looks_like_actions(value: JsonValue) -> bool:
    if isinstance(value, list):
        return bool(value) and all(isinstance(v, dict) for v in value)
    if not isinstance(value, dict):
        return False
    keys = set(value)
    return bool(keys & {"action", "actions", "name", "function"}) or any(
        isinstance(k, str) and normalised(k) in NORMALISED_NAMES for k in keys
    )


def _decode_at(text: str, start: int) -> tuple[JsonValue, int] | None:
    try:
        return cast("tuple[JsonValue, int]", _DECODER.raw_decode(text, start))
    except ValueError:
        return None


def strict_candidates(text: str) -> tuple[list[JsonValue], list[tuple[int, int]]]:
    """Valid JSON values: after each fence, inside tool-call tags, then at each brace in the prose."""
    found: list[JsonValue] = []
    spans: list[tuple[int, int]] = []
    for n, fence in enumerate(_FENCE.finditer(text)):
        if n >= _MAX_SCANS:
            break
        if spans and fence.start() < spans[-1][1]:
            continue  # a fence inside a string of the previous block
        start = _SPACE.match(text, fence.end()).end()  # type: ignore[union-attr]
        hit = _decode_at(text, start)
        if hit and looks_like_actions(hit[0]):
            found.append(hit[0])
            spans.append((fence.start(), hit[1]))
    if found:
        return found, spans
    scans, pos = 0, 0
    while scans < _MAX_SCANS:
        match = _BRACE.search(text, pos)
        if not match:
            break
        scans += 1
        hit = _decode_at(text, match.start())
        if hit and looks_like_actions(hit[0]):
            found.append(hit[0])
            spans.append((match.start(), hit[1]))
            pos = hit[1]
        else:
            pos = match.start() + 1
    return found, spans


def repaired_candidates(text: str) -> tuple[list[JsonValue], JsonObject | None]:
    """Repaired JSON that looks like actions; else the first other JSON object seen (for the error)."""
    tags = (m.group(1) for m in _TOOL_TAG.finditer(text))
    pieces = list(itertools.islice(itertools.chain(fenced_blocks(text), tags), _MAX_REPAIR_PIECES))
    first = _BRACE.search(text)
    if first:
        pieces.append(text[first.start() :])
    other: JsonObject | None = None
    for piece in pieces:
        if not spend_repair(piece):
            continue
        value = cast(JsonValue, json_repair.loads(piece))  # the repaired JSON (no logging tuple asked)
        if isinstance(value, list) and len(value) == 1 and isinstance(value[0], list):
            value = value[0]
        if looks_like_actions(value):
            return [value], None
        if other is None and isinstance(value, dict) and value:
            other = value
    return [], other
