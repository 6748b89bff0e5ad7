"""The reply schema of one step: a reply that can only be something Kite can run.

Servers that decode under a JSON schema (llama.cpp's server, vLLM, Ollama, LM Studio, OpenAI: the
``response_format`` ``json_schema`` form) get, every step, a schema built from the enabled actions and this
step's observation::

    {"thought": "<one or two short sentences>", "actions": [{"action": "click", "target": "button: Submit [12]"}]}

``thought`` comes first, so the model writes its reading of the page (and any comparison) before it acts.
Each action is one of the enabled actions with its fields as the action registry defines them
(``agent.llm.schemas.action_schema``: generated from the pydantic models, never written twice), narrowed to
what this page allows: the element is a ``target``, an enum of the elements present in the observation that
this action can act on, each written role and name first — ``"radio: GDKkQ [2]"`` — so that the model picks an
element by the name it read, and once it has written the name the grammar leaves only that element's index to
follow: a small model that writes a bare index picks a neighbour of the element it reasoned about
(``parsing`` reads the index back from the trailing ``[N]``). The role comes before the name, so the model
has chosen the kind of element before a name that begins a longer one ("Close", "Close Donec …") can run on
into it (``docs/decisions/target-label-role-first.md``). The elements it can
act on (``type`` text fields and editable elements, ``select`` selects and listboxes, ``uploadFile`` file
inputs, ``switchTab`` the open tabs), ``key`` one of the named keys or a single character. An action with
nothing to act on is left out. The parser reads the reply as it reads any JSON reply
(``agent.llm.parsing``), so the schema narrows what a model can write but never what Kite accepts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from kite_browser.agent.browser.actions import ACTION_MODELS, ACTION_NAMES, KEY_NAMES
from kite_browser.agent.browser.observation import Element, Observation, role_word
from kite_browser.agent.llm.schemas import action_schema

SCHEMA_NAME = "kite_step"
TARGET = "target"
"""The reply field that names an element as ``role: name [N]`` (read back as ``index`` N)."""
TARGET_INDEX = re.compile(r"\[(\d{1,9})\]\s*$")
TARGET_NAME_CHARS = 50
THOUGHT_CHARS = 300
"""Longest ``thought`` the schema allows: one or two short sentences."""
OWN_NOTES: dict[str, tuple[int, bool]] = {
    "plan": (200, True),
    "done_so_far": (160, True),
    "next": (120, False),
}
"""The model's own notes a reply may be asked to carry (the ``own_plan`` policy says which, each step): its plan
on the first step, what it has done so far and what it does next on later ones. Each name -> (its longest text,
whether it comes before ``thought``); ``next`` comes after it, just before the actions it leads to."""
TYPE_CHARS = 300
"""Longest text one ``type`` takes (longer text goes in several, with ``append``): a small model copying a long
text (a masked field's dots) into a field would otherwise run its reply into the output-token limit."""
_NOT_TEXT = frozenset(
    {"checkbox", "radio", "file", "submit", "button", "reset", "image", "hidden", "range", "color"}
)
_TEXT_ROLES = frozenset({"textbox", "searchbox", "combobox", "spinbutton"})
_SELECT_ROLES = frozenset({"listbox", "combobox"})
_DROPPED = ("description", "default", "title", "examples")
_ASKED_FOR = {
    "double": re.compile(r"double|dbl|双击", re.IGNORECASE),
    "mouse_button": re.compile(r"\bright\b|\bmiddle\b|context menu|右键|中键", re.IGNORECASE),
}
"""A click's modifiers, offered only when the task's words ask for them: a small model reaches for
``double: true`` when a click changed nothing, and a double click is two clicks, which toggles a control back
(or adds an item twice)."""


def can_type(el: Element) -> bool:
    """A text field or an editable element (inputs of text-like types, textareas, contenteditable)."""
    if el.editable or (el.role or "") in _TEXT_ROLES:
        return True
    return el.tag in ("input", "textarea") and (el.type or "text").lower() not in _NOT_TEXT


def can_select(el: Element) -> bool:
    """A native select, a listbox or a combobox (an input with suggestions counts)."""
    return el.tag == "select" or (el.role or "") in _SELECT_ROLES or bool(el.options)


def can_upload(el: Element) -> bool:
    return el.tag == "input" and (el.type or "").lower() == "file"


_TARGETS = {"type": can_type, "select": can_select, "uploadFile": can_upload}


def targets(action: str, observation: Observation) -> list[int]:
    """The indexes of this observation that ``action`` can act on, in page order."""
    fits = _TARGETS.get(action)
    return [e.index for e in observation.elements if fits is None or fits(e)]


def target_label(el: Element) -> str:
    """An element as a reply names it: its role, its name (or placeholder), its index: ``radio: GDKkQ [2]``,
    ``input: Search products [5]``, ``input [9]``. Not its id or name attribute: two nameless password fields
    with ids "password" and "verify" would read as names, and a model matches the task's words to them ("type the
    password" into both); a nameless element is chosen by its index."""
    name = el.name or el.placeholder or ""
    name = " ".join(name.split())
    if len(name) > TARGET_NAME_CHARS:
        name = name[: TARGET_NAME_CHARS - 1] + "…"
    return f"{role_word(el)}: {name} [{el.index}]" if name else f"{role_word(el)} [{el.index}]"


def target_index(value: object) -> int | None:
    """The index a ``target`` names (its trailing ``[N]``), or None."""
    m = TARGET_INDEX.search(value) if isinstance(value, str) else None
    return int(m.group(1)) if m else None


def _lean(node: Any) -> Any:
    """The schema without what decoding does not use (descriptions, defaults, titles)."""
    if isinstance(node, dict):
        return {k: _lean(v) for k, v in node.items() if k not in _DROPPED}
    if isinstance(node, list):
        return [_lean(v) for v in node]
    return node


def _element_targeted(name: str) -> bool:
    """The action's model takes an element by index or selector (an index is then what it needs)."""
    fields = ACTION_MODELS[name].model_fields
    return "index" in fields and "selector" in fields


def _variant(  # noqa: C901  (landed beside the C90 rule; to split by action kind)
    name: str,
    obs: Observation,
    vision: bool,
    output_schema: dict[str, Any] | None,
    task: str,
    off: set[int],
) -> dict[str, Any] | None:
    """One action's object schema for this page, or None when the page gives it nothing to act on."""
    params = _lean(action_schema(name))
    props: dict[str, Any] = params["properties"]
    required: list[str] = list(params.get("required", []))
    props.pop("selector", None)  # a selector is for an element without an index: none is listed without one
    if name == "click":
        for field, asked in _ASKED_FOR.items():
            if not asked.search(task):
                props.pop(field, None)
    if not vision:
        props.pop("x", None)
        props.pop("y", None)
    all_indexes = [e.index for e in obs.elements]
    if name == "switchTab":
        tabs = [t.index for t in obs.summary.tabs]
        if len(tabs) < 2:
            return None
        props = {"index": {"type": "integer", "enum": tabs}}
        required = ["index"]
    elif "index" in props:
        allowed = set(targets(name, obs)) - off
        needs_index = _element_targeted(name) and not vision
        index_required = "index" in required
        props.pop("index")
        required = [r for r in required if r != "index"]
        if allowed:
            labels = [target_label(e) for e in obs.elements if e.index in allowed]
            props = {TARGET: {"type": "string", "enum": labels}, **props}
            if needs_index or index_required:
                required.insert(0, TARGET)
        elif needs_index:
            return None
    if name == "getElementDetails":
        if not all_indexes:
            return None
        props["indices"] = {**props["indices"], "items": {"type": "integer", "enum": all_indexes}}
    if name == "dragDrop":
        if not all_indexes and not vision:
            return None
        for end in ("from", "to"):
            point = props[end]
            point["properties"]["index"] = {"type": "integer", "enum": all_indexes}
            if not vision:
                point["properties"] = {"index": point["properties"]["index"]}
                point["required"] = ["index"]
    _bound_text(name, props)
    if name == "done":  # ``data`` only where the task gives its schema (free-form JSON invites noise)
        if output_schema is None:
            props.pop("data", None)
        else:
            props["data"] = _lean(output_schema)
        # an answer always, if only a word: without it a small model ends a task that asks for a report
        # with the report unsaid (docs/decisions/done-requires-answer.md)
        props["answer"] = {"type": "string", "minLength": 1}
        required.append("answer")
    required = [r for r in required if r in props]
    return {
        "type": "object",
        "properties": {"action": {"type": "string", "const": name}, **props},
        "required": ["action", *required],
        "additionalProperties": False,
    }


def _bound_text(name: str, props: dict[str, Any]) -> None:
    """A key to the names the executor knows or one character; a typed text to ``TYPE_CHARS``."""
    if name == "type" and "text" in props:
        props["text"] = {**props["text"], "maxLength": TYPE_CHARS}
    if name == "pressKey":
        named = {"type": "string", "enum": list(KEY_NAMES)}
        props["key"] = {"anyOf": [named, {"type": "string", "minLength": 1, "maxLength": 1}]}


def reply_schema(
    observation: Observation,
    enabled: Iterable[str] | None = None,
    *,
    vision: bool = False,
    max_actions: int = 10,
    output_schema: dict[str, Any] | None = None,
    task: str = "",
    exclude: Iterable[tuple[str, int]] = (),
    secrets: Sequence[str] = (),
    notes: Sequence[str] = (),
) -> dict[str, Any]:
    """The JSON schema of this step's reply: ``thought`` (first), then 1..``max_actions`` actions, each one of
    ``enabled`` (default: every action) narrowed to this observation; a click's ``double`` and
    ``mouse_button`` only when ``task`` asks for them (``_ASKED_FOR``); no (action, element) pair of
    ``exclude`` (the loop guard's ``futile`` ones); with ``secrets`` (their names), a password field takes
    only their placeholders (``_password_variants``); ``notes``: the model's own notes it carries
    (``OWN_NOTES``), in their order around ``thought``."""
    names = [n for n in (ACTION_NAMES if enabled is None else enabled) if n in ACTION_MODELS]
    off: dict[str, set[int]] = {}
    for name, index in exclude:
        off.setdefault(name, set()).add(index)
    variants = [
        part
        for n in names
        if (v := _variant(n, observation, vision, output_schema, task, off.get(n, set()))) is not None
        for part in _narrowed(n, v, observation, secrets)
    ]
    own = [n for n in OWN_NOTES if n in notes]
    before = [n for n in own if OWN_NOTES[n][1]]
    fields = [*before, "thought", *(n for n in own if n not in before), "actions"]
    texts = {n: {"type": "string", "minLength": 1, "maxLength": OWN_NOTES[n][0]} for n in own}
    properties = {
        **texts,
        "thought": {"type": "string", "minLength": 1, "maxLength": THOUGHT_CHARS},
        "actions": {
            "type": "array",
            "minItems": 1,
            "maxItems": max(1, max_actions),
            "items": {"anyOf": variants},
        },
    }
    return {
        "type": "object",
        "properties": {name: properties[name] for name in fields},
        "required": fields,
        "additionalProperties": False,
    }


def _narrowed(
    name: str, variant: dict[str, Any], obs: Observation, secrets: Sequence[str]
) -> list[dict[str, Any]]:
    """``variant`` split where the page's facts narrow it: ``type`` by password fields, ``select`` by each
    dropdown's own options."""
    if name == "type":
        return _password_variants(variant, obs, secrets)
    if name == "select":
        return _select_variants(variant, obs)
    return [variant]


MAX_SELECT_VARIANTS = 12
"""Dropdowns given a ``select`` of their own (their options as the value's enum); past this many, one for all."""


def _select_variants(variant: dict[str, Any], obs: Observation) -> list[dict[str, Any]]:
    """``select`` split per dropdown whose every option is listed: its value is one of its options, minus the
    one already selected, so that a model can neither try another control's label on a dropdown nor choose
    again what it already shows. A dropdown with options not all listed (cut, or more than shown)
    keeps the free value; one with nothing left to choose is left out."""
    enum = variant["properties"].get(TARGET, {}).get("enum", [])
    by_label = {target_label(e): e for e in obs.elements}
    known = [
        (label, el)
        for label in enum
        if (el := by_label.get(label)) is not None
        and el.options
        and not el.more_options
        and not any(o.endswith("…") for o in el.options)
    ]
    if not known or len(known) > MAX_SELECT_VARIANTS:
        return [variant]
    out = []
    if others := [label for label in enum if label not in {label for label, _ in known}]:
        out.append(_with(variant, {TARGET: {"type": "string", "enum": others}}))
    for label, el in known:
        left = [o for o in dict.fromkeys(el.options or []) if o != (el.value or None)]
        if left:
            one = _with(
                variant,
                {TARGET: {"type": "string", "enum": [label]}, "value": {"type": "string", "enum": left}},
            )
            one["required"] = ["action", TARGET, *(r for r in one["required"] if r not in ("action", TARGET))]
            out.append(one)
    return out


def _password_variants(
    variant: dict[str, Any], obs: Observation, secrets: Sequence[str]
) -> list[dict[str, Any]]:
    """``type`` split in two when the run was given secrets and the page has password fields: a password
    field takes only ``<secret>name</secret>``, other fields any text, because a model told to use the
    password it was given types the secret's bare name, a made-up password or the field's own dots, each
    of which Kite refuses as plain text typed into a password field."""
    enum = variant["properties"].get(TARGET, {}).get("enum", [])
    hidden = {target_label(e) for e in obs.elements if (e.type or "").lower() == "password"}
    fields = [label for label in enum if label in hidden]
    if not secrets or not fields:
        return [variant]
    out = []
    if others := [label for label in enum if label not in hidden]:
        out.append(_with(variant, {TARGET: {"type": "string", "enum": others}}))
    placeholders = {"type": "string", "enum": [f"<secret>{name}</secret>" for name in secrets]}
    secret = _with(variant, {TARGET: {"type": "string", "enum": fields}, "text": placeholders})
    secret["required"] = ["action", TARGET, *(r for r in secret["required"] if r not in ("action", TARGET))]
    return [*out, secret]


def _with(variant: dict[str, Any], props: dict[str, Any]) -> dict[str, Any]:
    return {**variant, "properties": {**variant["properties"], **props}}


def response_format(schema: dict[str, Any]) -> dict[str, Any]:
    """The OpenAI-style ``response_format`` that carries ``schema`` (llama.cpp, vLLM, Ollama, LM Studio read it)."""
    return {"type": "json_schema", "json_schema": {"name": SCHEMA_NAME, "strict": True, "schema": schema}}
