"""From a model's reply to actions: tool calls, the single ``browser_action`` tool, or JSON written as text.

``parse_reply`` never raises anything but ``ParseError``, whatever the model sent; the error's message is
written for the model (what was wrong, what is valid) and is fed back to it as the next observation.
The text fallback is tolerant: fenced blocks with or without a language tag, bare JSON, JSON after prose,
``<tool_call>`` tags, trailing commas, single quotes, comments and Python's True/None (``json_repair``).
Each action is then validated forgivingly (``agent.llm.forgiving``): what the model clearly meant is run.
Finding the JSON in the text (and its bounded repair) is ``agent.llm.reply_json``; this module turns what it
finds, or the tool calls, into actions.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Literal

import json_repair
from pydantic import BaseModel, ConfigDict

from kite_browser.agent.base.errors import KiteError
from kite_browser.agent.base.jsontypes import JsonObject, JsonValue
from kite_browser.agent.browser.actions import ACTION_MODELS, ACTION_NAMES, Action
from kite_browser.agent.llm.client import LLMReply, ToolCall
from kite_browser.agent.llm.forgiving import (
    EXAMPLE,
    closest_action,
    corrected_example,
    example_from_object,
    example_from_prose,
    forgive,
    not_json,
    repaired_plain_text,
    resolve_alias,
    signature,
)
from kite_browser.agent.llm.reply_json import (
    NORMALISED_NAMES,
    REPAIR_BUDGET,
    normalised,
    repair_budget,
    repaired_candidates,
    spend_repair,
    strict_candidates,
)
from kite_browser.agent.llm.reply_schema import OWN_NOTES, TARGET, target_index
from kite_browser.agent.llm.reply_text import CUT_OFF, REASONING_ONLY, was_cut_off
from kite_browser.agent.llm.schemas import SINGLE_TOOL_NAME

MAX_TEXT_CHARS = 100_000
"""Longest reply text, and longest tool-call arguments, that are read at all."""
MAX_THOUGHT_CHARS = 2_000
_META_KEYS = frozenset(
    {
        "thought",
        "thoughts",
        "thinking",
        "reasoning",
        "reason",
        "explanation",
        "plan",
        "memory",
        "evaluation",
        "next_goal",
        "done_so_far",
        "next",
        "comment",
        "note",
        "description",
    }
)
_PARAM_KEYS = ("params", "parameters", "args", "arguments", "input")


class ParseError(KiteError):
    """The reply held no valid action. The message says exactly what was wrong and what is valid."""

    type = "parse_error"


class ParsedReply(BaseModel):
    model_config = ConfigDict(frozen=True)

    actions: list[Action]
    """The actions, in the order the model gave them."""
    thought: str | None = None
    """The model's reasoning: a ``thought`` field, or the prose around the JSON / tool calls."""
    source: Literal["tool_calls", "json"]
    """Where the actions came from."""
    dropped: int = 0
    """Actions beyond ``max_actions`` that were ignored (the model should be told)."""
    said: dict[str, str] = {}
    """The model's own notes beside its actions (``reply_schema.OWN_NOTES``: its plan, what it has done so far,
    what it does next), as it wrote them."""
    notes: list[str] = []
    """Per action (same order), what Kite repaired to run it ("" if nothing): extra fields ignored, a near
    name read as the real one, two targets reduced to one. The model sees it in the action's result."""


def _fail(message: str, **context: object) -> ParseError:
    return ParseError(message, valid_actions=list(ACTION_NAMES), **context)


def _resolve_name(raw: object, params: JsonObject | None = None) -> tuple[str, JsonObject]:
    """(Kite's action name, what the name implies): an exact or near-exact name, or a name models invent
    (``input_text`` → type, with a note for the model). Unknown: a ParseError with a corrected example."""
    if isinstance(raw, str):
        if raw in ACTION_MODELS:
            return raw, {}
        found = NORMALISED_NAMES.get(normalised(raw))
        if found:
            return found, {}
        if alias := resolve_alias(raw):
            return alias
    shown = json.dumps(raw)[:80] if not isinstance(raw, str) else repr(raw[:80])
    near = closest_action(raw) if isinstance(raw, str) else None
    example = corrected_example({**(params or {}), "action": near}) if near else ""
    hint = f" Did you mean: {example}" if example else ""
    raise _fail(f"Unknown action {shown}. Valid actions: {', '.join(ACTION_NAMES)}.{hint}")


def _as_object(raw: object, what: str, example: str = EXAMPLE) -> JsonObject:
    if raw is None or raw == "":
        return {}
    value = raw
    if isinstance(raw, str):
        if len(raw) > MAX_TEXT_CHARS:
            raise _fail(f"{what} are {len(raw)} characters long; at most {MAX_TEXT_CHARS} are read.")
        try:
            value = json.loads(raw)
        except ValueError:
            if not spend_repair(raw):
                raise _fail(
                    f"{what} are not valid JSON, and too large or too nested to repair "
                    f"({len(raw)} characters). Send them as a plain JSON object."
                ) from None
            value = json_repair.loads(raw)
            if repaired_plain_text(value, raw):  # "not json at all", "I click [5]"
                raise _fail(not_json(raw, what, example)) from None
        if isinstance(value, str) and value.strip()[:1] in ("{", "["):  # double-encoded
            return _as_object(value, what, example)
    if value in (None, ""):
        return {}
    if not isinstance(value, dict):
        raise _fail(f"{what} must be a JSON object of parameters, got {json.dumps(value)[:80]}.")
    return value


def _validate(flat: JsonObject, position: int) -> tuple[Action, str]:
    """The action, and a note on what was repaired ("" if nothing); else a ParseError with one example."""
    if "index" not in flat and (index := target_index(flat.get(TARGET))) is not None:
        flat = {**{k: v for k, v in flat.items() if k != TARGET}, "index": index}  # the reply schema's form
    name = str(flat["action"])
    forgiven = forgive(flat)
    if forgiven.action is not None:
        return forgiven.action, "; ".join(forgiven.notes)
    where = f" (action #{position + 1})" if position else ""
    example = f" Corrected from your reply: {forgiven.example}" if forgiven.example else ""
    raise _fail(
        f"Invalid parameters for '{name}'{where}: {'; '.join(forgiven.problems)}. "
        f"Valid form: {signature(name)} (? = optional).{example}",
        action=name,
    )


def _flatten(item: object) -> JsonObject:
    """One action object in any of the accepted shapes → the flat form ``{"action": name, ...params}``."""
    if not isinstance(item, dict):
        raise _fail(f"Each action must be a JSON object, got {json.dumps(item)[:80]}. {_corrected(item)}")
    function = item.get("function")
    if isinstance(function, dict):  # an OpenAI tool-call object written as text
        item = function
    if "action" not in item and "name" in item:
        args = next((item[k] for k in _PARAM_KEYS if k in item), None)
        if args is None:  # {"name": "click", "index": 3}: the parameters sit beside the name
            args = {k: v for k, v in item.items() if k != "name" and k not in _META_KEYS} or None
        return _from_call(item["name"], args)
    if "action" in item:
        action = item["action"]
        if isinstance(action, dict):
            return _flatten(action)
        params_key = next((k for k in _PARAM_KEYS if k in item), None)
        rest = {k: v for k, v in item.items() if k not in _META_KEYS and k != "action" and k != params_key}
        params = _as_object(item[params_key], f"'params' of {str(action)[:40]}") if params_key else {}
        name, implied = _resolve_name(action, {**rest, **params})
        return {**implied, **rest, **params, "action": name}
    keys = [k for k in item if k not in _META_KEYS]
    if len(keys) == 1 and isinstance(keys[0], str) and normalised(keys[0]) in NORMALISED_NAMES:
        name, implied = _resolve_name(keys[0])
        return {**implied, **_as_object(item[keys[0]], f"parameters of {keys[0]}"), "action": name}
    raise _fail(
        f'An action object needs an "action" field; got keys {sorted(map(str, item))[:8]}. '
        f"{_corrected(item)} Valid actions: {', '.join(ACTION_NAMES)}."
    )


def _corrected(item: object) -> str:
    """One example to copy: the model's own action, corrected, when the reply names one; else a generic one."""
    own = example_from_object(item)
    return f"Corrected from your reply: {own}" if own else f"For example: {EXAMPLE}"


def _from_call(name: object, arguments: object) -> JsonObject:
    if name == SINGLE_TOOL_NAME:
        args = _as_object(arguments, f"arguments of {SINGLE_TOOL_NAME}")
        if "action" not in args:
            raise _fail(f'{SINGLE_TOOL_NAME} needs "action" (one of {", ".join(ACTION_NAMES)}) and "params".')
        return _flatten(args)
    known = isinstance(name, str) and name in ACTION_MODELS
    example = corrected_example({"action": name}) if known and isinstance(name, str) else EXAMPLE
    args = _as_object(arguments, f"arguments of {str(name)[:40]}", example)
    if set(args) <= {"params", "action"} and isinstance(args.get("params"), dict | str):
        args = _as_object(args["params"], f"params of {str(name)[:40]}")
    args = {k: v for k, v in args.items() if k not in _META_KEYS and k != "action"}
    resolved, implied = _resolve_name(name, args)
    return {**implied, **args, "action": resolved}


def _said(value: JsonObject) -> dict[str, str]:
    """The own notes (``OWN_NOTES``) of a reply object that carries actions."""
    return {
        k: v.strip()[:MAX_THOUGHT_CHARS]
        for k in OWN_NOTES
        if isinstance(v := value.get(k), str) and v.strip()
    }


def _items(values: list[JsonValue]) -> tuple[list[JsonValue], str | None, dict[str, str]]:
    items: list[JsonValue] = []
    thought: str | None = None
    said: dict[str, str] = {}
    for value in values:
        if isinstance(value, dict) and isinstance(actions := value.get("actions"), list):
            thought = thought or _thought_of(value)
            said = said or _said(value)
            items.extend(actions)
        elif isinstance(value, list):
            sub, sub_thought, sub_said = _items(value)
            items.extend(sub)
            thought, said = thought or sub_thought, said or sub_said
        else:
            items.append(value)
    return items, thought, said


def _thought_of(value: JsonValue) -> str | None:
    if isinstance(value, dict):
        for key in ("thought", "thoughts", "thinking", "reasoning"):
            if isinstance(text := value.get(key), str) and text.strip():
                return text.strip()[:MAX_THOUGHT_CHARS]
    return None


def _prose(text: str, spans: list[tuple[int, int]]) -> str | None:
    for start, end in sorted(spans, reverse=True):
        text = text[:start] + text[end:]
    text = re.sub(r"```[A-Za-z0-9_+-]*|<[/]?(?:tool_call|function_call|action)>", "", text).strip()
    return text[:MAX_THOUGHT_CHARS] or None


_HOW_TO = (
    'Reply with a tool call, or with one ```json block: {"action": "<name>", "params": {...}} '
    f"(or a list of them). Valid actions: {', '.join(ACTION_NAMES)}."
)


def _parse_text(text: str) -> tuple[list[JsonObject], str | None, dict[str, str]]:
    if not text.strip():
        raise _fail(f"Your reply was empty. {_HOW_TO}")
    text = text[:MAX_TEXT_CHARS]
    values, spans = strict_candidates(text)
    if not values:
        values, other = repaired_candidates(text)
        spans = []
        if not values and other is not None:
            _flatten(other)  # raises the precise "needs an action field" error
    if not values:
        raise _fail(f"No action found in your reply. {_HOW_TO}{example_from_prose(text)}")
    items, thought, said = _items(values)
    if not items:
        raise _fail(f"The action list was empty. {_HOW_TO}")
    thought = thought or next((t for t in map(_thought_of, items) if t), None)
    return [_flatten(item) for item in items], thought or (_prose(text, spans) if spans else None), said


def _parse_calls(calls: list[ToolCall]) -> list[JsonObject]:
    return [_from_call(call.name, call.arguments) for call in calls]


def _parse(reply: LLMReply | str, max_actions: int) -> ParsedReply:
    source: Literal["tool_calls", "json"]
    if isinstance(reply, LLMReply) and reply.tool_calls:
        flats, source = _parse_calls(reply.tool_calls), "tool_calls"
        thought = (reply.content or "").strip()[:MAX_THOUGHT_CHARS] or None
        said: dict[str, str] = {}
    else:
        text = reply if isinstance(reply, str) else (reply.content or "")
        if not text.strip() and isinstance(reply, LLMReply) and reply.reasoning:
            raise _fail(f"{REASONING_ONLY} {_HOW_TO}")
        (flats, thought, said), source = _parse_text(text), "json"
    checked = [_validate(flat, i) for i, flat in enumerate(flats)]
    keep = max(1, max_actions)
    return ParsedReply(
        actions=[a for a, _ in checked[:keep]],
        notes=[n for _, n in checked[:keep]],
        thought=thought,
        said=said,
        source=source,
        dropped=max(0, len(checked) - keep),
    )


def parse_reply(reply: LLMReply | str, *, max_actions: int = 10) -> ParsedReply:
    """The actions in a reply, in order; raises only ``ParseError`` (never anything else, for any input).

    Bounded: JSON repair gets at most ``REPAIR_BUDGET`` of work per reply, whatever the reply holds. A reply
    cut off at the output limit is run only if its JSON was whole: a repaired one would type half a text."""
    with repair_budget() as left:
        try:
            parsed = _parse(reply, max_actions)
            if was_cut_off(reply) and left[0] < REPAIR_BUDGET:
                raise _fail(CUT_OFF)
            return parsed
        except ParseError as exc:
            if was_cut_off(reply) and exc.message != CUT_OFF:
                raise _fail(f"{CUT_OFF} (Read as it was: {exc.message})") from exc
            raise
        except Exception as exc:  # a model's reply must never crash Kite
            raise _fail(f"Your reply could not be read ({type(exc).__name__}). {_HOW_TO}") from exc


async def parse_reply_async(reply: LLMReply | str, *, max_actions: int = 10) -> ParsedReply:
    """``parse_reply`` in a worker thread, so that repairing a large reply never blocks the event loop."""
    return await asyncio.to_thread(parse_reply, reply, max_actions=max_actions)
