"""Forgiving validation of one action: what a model clearly meant is run, with a note; the rest is explained.

Small models add fields an action does not have (``click`` with a ``text``), use near names (``value`` for
``type``'s ``text``, the old ``button`` for ``click``'s ``mouse_button``), give two targets (``index`` and
``selector``), write ``null`` for an optional field, or an index as ``"[12]"``. ``forgive(flat)`` repairs
those: the action is run and each repair is a short note for the model (shown in the action's result).
What cannot be repaired (a missing ``text``, no target at all, an unknown action) is returned as problems
plus ONE corrected example built from the model's own reply, which the parse error shows the model.

Names of actions the model invents (``input_text``, ``goto``, ``finish``, ``scroll_down``) are mapped by
``resolve_alias`` to Kite's actions, with a note too. Nothing here is task- or site-specific.
"""

from __future__ import annotations

import difflib
import itertools
import json
import re
from dataclasses import dataclass, field

from pydantic import ValidationError
from pydantic.fields import FieldInfo

from kite_browser.agent.base.jsontypes import JsonObject, JsonValue
from kite_browser.agent.browser.actions import (
    ACTION_MODELS,
    ACTION_NAMES,
    Action,
    offered_fields,
    parse_action,
)
from kite_browser.agent.llm.schemas import action_catalog

NOTES_KEY = "__kite_notes__"
"""Where name resolution leaves its notes in a flat action (popped before validation)."""
_TARGETS = ("index", "selector", "x", "y")
_NORM = re.compile(r"[_\-\s]")
_INDEX_TEXT = re.compile(r"^\s*[\[#]?\s*(\d{1,9})\s*\]?\s*$")
_WORD = re.compile(r"[A-Za-z_]{4,20}")
_INDEX_IN_PROSE = re.compile(r"\[(\d{1,9})\]")

# Names small models use for Kite's actions (normalised: no _ - or spaces, lower case) → (action, implied params).
_ACTION_ALIASES: dict[str, tuple[str, JsonObject]] = {
    **dict.fromkeys(
        ("inputtext", "entertext", "typetext", "fill", "filltext", "input", "settext", "write", "typeinto"),
        ("type", {}),
    ),
    **dict.fromkeys(
        ("press", "key", "keypress", "presskeys", "sendkeys", "sendkey", "hitkey"), ("pressKey", {})
    ),
    **dict.fromkeys(("goto", "gotourl", "open", "openurl", "visit", "opentab", "go"), ("navigate", {})),
    **dict.fromkeys(
        ("finish", "complete", "answer", "taskcomplete", "end", "stop", "submitanswer"), ("done", {})
    ),
    **dict.fromkeys(
        ("selectoption", "choose", "chooseoption", "selectdropdownoption", "dropdown"), ("select", {})
    ),
    **dict.fromkeys(("clickelement", "clickbutton", "clicklink", "tap", "check", "uncheck"), ("click", {})),
    "doubleclick": ("click", {"double": True}),
    "rightclick": ("click", {"mouse_button": "right"}),
    "scrolldown": ("scroll", {"direction": "down"}),
    "scrollup": ("scroll", {"direction": "up"}),
    "back": ("goBack", {}),
    "forward": ("goForward", {}),
    "reload": ("refresh", {}),
    **dict.fromkeys(("readpage", "extract", "extractcontent", "gettext", "findtext"), ("read", {})),
    "sleep": ("wait", {}),
}
# A parameter name a model used → the action's own name for it (only when the action has that field and the
# model did not also give it).
_FIELD_SYNONYMS: dict[str, tuple[str, ...]] = {
    "index": ("element", "elementindex", "elementid", "idx", "id", "target", "ref", "i"),
    "text": ("value", "content", "input", "string", "texttotype", "inputtext", "query"),
    "value": ("option", "label", "text", "choice", "selected", "optionvalue"),
    "key": ("keys", "keyname", "button", "value"),
    "url": ("link", "href", "address", "website"),
    "answer": ("result", "response", "message", "text", "output", "finalanswer"),
    "mouse_button": ("button", "mousebutton"),
    "ms": ("milliseconds", "duration", "time", "timeout"),
    "direction": ("dir", "way"),
}


_HINTS = {
    ("click", "text"): " (click does not type)",
    ("click", "button"): " (mouse_button is left/right/middle)",
}


@dataclass
class Forgiven:
    """The outcome of ``forgive``: an action (with notes for the model), or problems and one example."""

    action: Action | None = None
    notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    example: str = ""


def signature(name: str) -> str:
    """``click(index, mouse_button?, double?)``: the parameters to use, ``?`` marking the optional ones."""
    return name + next(a["signature"] for a in action_catalog() if a["name"] == name)


def _norm(name: str) -> str:
    return _NORM.sub("", name).lower()


def resolve_alias(raw: str) -> tuple[str, JsonObject] | None:
    """An action name a model invented → (Kite's action, the params it implies and a note); else None."""
    found = _ACTION_ALIASES.get(_norm(raw))
    if found is None:
        return None
    name, implied = found
    return name, {**implied, NOTES_KEY: [f"read action '{raw[:40]}' as '{name}'"]}


def closest_action(raw: str) -> str | None:
    """The action whose name looks most like ``raw`` (for a corrected example), if any is close."""
    found = difflib.get_close_matches(_norm(raw), [n.lower() for n in ACTION_NAMES], n=1, cutoff=0.6)
    return next((n for n in ACTION_NAMES if found and n.lower() == found[0]), None)


def _fields(name: str) -> dict[str, FieldInfo]:
    """The action's parameters by the name the model writes (alias if any) → pydantic FieldInfo."""
    return dict(offered_fields(ACTION_MODELS[name]))


def _short(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 40 else text[:39] + "…"


def _rename_or_drop(name: str, flat: JsonObject, notes: list[str]) -> JsonObject:
    """Unknown keys: renamed when they are another name of a missing parameter, else dropped (noted)."""
    fields = _fields(name)
    by_name = {k: k for k in fields} | {
        key: info.alias for key, info in ACTION_MODELS[name].model_fields.items() if info.alias
    }
    out = {k: v for k, v in flat.items() if k == "action" or k in by_name}
    for key, value in flat.items():
        if key == "action" or key in by_name:
            continue
        target = next(
            (
                f
                for f, synonyms in _FIELD_SYNONYMS.items()
                if f in fields
                and f not in out
                and (_norm(key) in synonyms or key in synonyms)
                and _plausible(name, f, value)
            ),
            None,
        )
        if target is not None:
            out[target] = value
            notes.append(f"read '{key}' as '{target}'")
        elif key in _TARGETS or _norm(key) in _FIELD_SYNONYMS["index"]:
            notes.append(f"ignored {key}={_short(value)} ({name} has no {key})")
        else:
            notes.append(f"ignored {key}={_short(value)}{_HINTS.get((name, key), '')}")
    return out


def _plausible(action: str, field_name: str, value: JsonValue) -> bool:
    if field_name == "index":
        return (isinstance(value, int) and not isinstance(value, bool)) or bool(
            isinstance(value, str) and _INDEX_TEXT.match(value)
        )
    if field_name == "mouse_button":
        return value in ("left", "right", "middle")
    if field_name in ("text", "value", "key", "url", "answer"):
        return isinstance(value, str | list) or (field_name == "text" and isinstance(value, int | float))
    return True


def _one_target(name: str, flat: JsonObject, notes: list[str]) -> JsonObject:
    """Two targets: the index wins over a selector and coordinates; a selector over coordinates."""
    given = [k for k in _TARGETS if flat.get(k) is not None]
    keep = "index" if "index" in given else "selector" if "selector" in given else None
    if keep is None:
        return flat
    dropped = [k for k in given if k != keep]
    if not dropped:
        return flat
    notes.append(f"ignored {' and '.join(dropped)} (used {keep} {_short(flat[keep])}; give one target)")
    return {k: v for k, v in flat.items() if k not in dropped}


def _tidy_values(name: str, flat: JsonObject) -> JsonObject:
    """``null`` for an optional parameter means "not set"; an index written as text ("[12]") is a number."""
    fields = _fields(name)
    out = {}
    for key, value in flat.items():
        info = fields.get(key)
        if value is None and info is not None and not info.is_required():
            continue
        if key == "index" and isinstance(value, str) and (m := _INDEX_TEXT.match(value)):
            value = int(m.group(1))
        if (
            key == "text"
            and name == "type"
            and isinstance(value, int | float)
            and not isinstance(value, bool)
        ):
            value = str(value)
        out[key] = value
    return out


def _problems(exc: ValidationError) -> tuple[list[str], set[str]]:
    problems, bad = [], set()
    for err in exc.errors()[:3]:
        loc = [str(p) for p in err["loc"][1:]]
        where = ".".join(loc)
        if loc:
            bad.add(loc[0])
        if err["type"] == "extra_forbidden":
            problems.append(f"unknown parameter '{where}'")
        elif err["type"] == "missing":
            problems.append(f"missing required parameter '{where}'")
        else:
            msg = err["msg"].removeprefix("Value error, ")
            problems.append(f"'{where}': {msg}" if where else msg)
    return problems, bad


def _validate(flat: JsonObject) -> tuple[Action | None, ValidationError | None]:
    try:
        return parse_action(flat), None
    except ValidationError as exc:
        return None, exc


def forgive(flat: JsonObject) -> Forgiven:
    """Validate a flat action ``{"action": name, ...}`` (name already resolved), repairing what is clear."""
    flat = dict(flat)
    given = flat.pop(NOTES_KEY, None)
    notes = [str(note) for note in given] if isinstance(given, list) else []
    name = str(flat["action"])
    action, exc = _validate(flat)
    if action is not None:
        return Forgiven(action, notes)
    flat = _tidy_values(name, _one_target(name, _rename_or_drop(name, flat, notes), notes))
    action, exc = _validate(flat)
    if exc is not None:  # an optional, non-target parameter with a value it cannot take: leave it out
        _, bad = _problems(exc)
        fields = _fields(name)
        optional = [k for k in bad if k in fields and k not in _TARGETS and not fields[k].is_required()]
        for key in optional:
            notes.append(f"ignored {key}={_short(flat.pop(key))} (not a valid value)")
        if optional:
            action, exc = _validate(flat)
    if action is not None:
        return Forgiven(action, notes)
    assert exc is not None
    problems, bad = _problems(exc)
    return Forgiven(None, notes, problems, corrected_example(flat, bad))


def _placeholder(key: str) -> str:
    return f"<{key}>"


def corrected_example(flat: JsonObject, bad: set[str] | None = None) -> str:
    """The model's own action, fixed as far as Kite can: valid parameters kept, the invalid or missing
    required ones (and a missing target) shown as ``<name>`` placeholders for the model to fill in."""
    name, bad = flat.get("action"), bad or set()
    if not isinstance(name, str) or name not in ACTION_MODELS:
        return ""
    fields = _fields(name)
    shown: JsonObject = {"action": name}
    holes: list[str] = []
    for key, info in fields.items():
        if key in flat and key not in bad:
            shown[key] = flat[key]
        elif info.is_required() or (key == "index" and not any(flat.get(t) is not None for t in _TARGETS)):
            if key in ("selector", "x", "y"):
                continue
            shown[key] = None
            holes.append(key)
    if "index" in fields and "index" not in shown and not any(k in shown for k in _TARGETS):
        shown["index"], holes = None, [*holes, "index"]
    text = json.dumps(shown, ensure_ascii=False)
    for key in holes:
        text = text.replace(f'"{key}": null', f'"{key}": {_placeholder(key)}', 1)
    return text


def example_from_object(item: object) -> str:
    """An action object without an ``action`` field (``{"type": "click", "index": 5}``, ``{"tool": "navigate",
    "url": ...}``), or a bare value where an object was due (``"click [5]"``), as the action it names, its
    parameters kept: the model's own reply, corrected. "" when it names no action."""
    if not isinstance(item, dict):
        return action_from_prose(item if isinstance(item, str) else json.dumps(item, default=str))
    for key, value in item.items():
        if not isinstance(value, str):
            continue
        name = value if value in ACTION_MODELS else closest_action(value)
        found = resolve_alias(value) if name is None else (name, {})
        if found is not None:
            name, implied = found
            given = item.get("params")
            params: JsonObject = given if isinstance(given, dict) else {}
            rest = {k: v for k, v in item.items() if k not in (key, "params")}
            flat = {**rest, **params, **implied, "action": name}
            flat.pop(NOTES_KEY, None)
            return corrected_example(flat)
    return action_from_prose(json.dumps(item, default=str))


def example_from_prose(text: str) -> str:
    """A reply that only says what it wants ("I will click [5]") → that action as JSON, to copy next time."""
    action = action_from_prose(text)
    return f" Your reply as an action: {action}" if action else ""


EXAMPLE = '{"action": "click", "params": {"index": 3}}'


def not_json(text: str, what: str, example: str = EXAMPLE) -> str:
    """Plain text where a JSON object was due: said so, with one example to copy (the action the text
    names, "click 5", when it names one)."""
    shown = action_from_prose(text) or example
    return f"{what} are not valid JSON: got {text.strip()[:80]!r}. Send a JSON object, e.g. {shown}"


def repaired_plain_text(repaired: object, text: str) -> bool:
    """Whether invalid JSON ``text`` was prose rather than a broken object: its repair is no object (or an
    empty one from text without a brace), nor a double-encoded one."""
    if isinstance(repaired, str) and repaired.strip()[:1] in ("{", "["):
        return False
    return not isinstance(repaired, dict) or not (repaired or "{" in text)


def action_from_prose(text: str) -> str:
    """The action a text names ("click [5]") as JSON with placeholders; "" when it names none."""
    names = {_norm(n): n for n in ACTION_NAMES if n != "done"}
    name = next(
        (
            names[_norm(w.group(0))]
            for w in itertools.islice(_WORD.finditer(text[:2000]), 300)
            if _norm(w.group(0)) in names
        ),
        None,
    )
    if name is None:
        return ""
    flat: JsonObject = {"action": name}
    index = _INDEX_IN_PROSE.search(text[:2000])
    if index and "index" in _fields(name):
        flat["index"] = int(index.group(1))
    return corrected_example(flat)
