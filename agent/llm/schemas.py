"""Tool schemas and the action catalogue for the LLM, generated from the action models (never by hand).

``tool_schemas(style=...)`` gives the tools sent to a function-calling model, in one of three styles:

- ``single`` (the default): one ``browser_action {action, params}`` tool whose description is the action
  catalogue (one line per action: signature and what it does) — the smallest (``evals/bench/prompt_size.py``);
- ``compact``: one function per action with short descriptions and only the parameters a model should use;
- ``full``: one function per action, every parameter with its description.

Each is a ``ToolDef`` (``agent/base/toolset.py``, the one shape of a tool) offered in its OpenAI form.
``action_catalog()`` is the same catalogue the JSON fallback's system prompt lists. The parser accepts every
form whatever was sent.

The JSON Schema is simplified for the widest provider support: ``$ref`` inlined, titles dropped, and
optional-nullable fields (``anyOf [X, null]``) reduced to ``X`` since leaving them out means "not set".
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any, Literal

from kite_browser.agent.base.jsonschema import as_object, flat_schema
from kite_browser.agent.base.toolset import ToolDef
from kite_browser.agent.browser.actions import ACTION_MODELS, ACTION_NAMES, offered_fields
from kite_browser.agent.llm.chat import ChatTool

SINGLE_TOOL_NAME = "browser_action"
ToolStyle = Literal["single", "compact", "full"]
TOOL_STYLES: tuple[ToolStyle, ...] = ("single", "compact", "full")
_POINT = ("selector", "x", "y")

_TARGET_HINTS = {
    frozenset(
        {"index", "selector", "x", "y"}
    ): "Target: exactly one of index, selector, or x together with y.",
    frozenset({"index", "selector"}): "Target: exactly one of index or selector.",
}


def _description(name: str) -> str:
    model = ACTION_MODELS[name]
    text = " ".join((model.__doc__ or name).split())
    fields = set(offered_fields(model))
    for keys, hint in _TARGET_HINTS.items():
        if keys <= fields and keys != fields:
            text = f"{text} {hint}"
            break
    return text


@cache
def _parameters(name: str) -> dict[str, Any]:
    schema = ACTION_MODELS[name].model_json_schema(by_alias=True)
    params = flat_schema(schema)
    params.pop("description", None)
    as_object(params["properties"]).pop("action", None)
    params["type"] = "object"
    params.setdefault("required", [])
    return params


def action_schema(name: str) -> dict[str, Any]:
    """The JSON Schema of one action's parameters (without the ``action`` tag)."""
    if name not in ACTION_MODELS:
        raise KeyError(f"unknown action {name!r}; valid: {', '.join(ACTION_NAMES)}")
    return _copy(_parameters(name))


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _signature(name: str, vision: bool) -> str:
    """``click(index, mouse_button?, double?)``: the parameters a model should use. The selector (and,
    without a screenshot, x/y) are left out: a selector is only for an element without an index, and a
    small model that sees it in every signature reaches for it first."""
    fields = offered_fields(ACTION_MODELS[name])
    hidden = ("selector",) if vision else _POINT
    targeted = "index" in fields and "selector" in fields
    parts = []
    for shown, f in fields.items():
        if shown not in hidden:
            parts.append(shown if f.is_required() or (targeted and shown == "index") else f"{shown}?")
    return "(" + ", ".join(parts) + ")"


@cache
def action_catalog(vision: bool = False) -> tuple[dict[str, str], ...]:
    """One entry per action: name, compact signature and its description (the model's docstring)."""
    return tuple(
        {
            "name": name,
            "signature": _signature(name, vision),
            "description": " ".join((ACTION_MODELS[name].__doc__ or "").split()),
        }
        for name in ACTION_NAMES
    )


def _compact(name: str, vision: bool) -> ToolDef:
    params = action_schema(name)
    hidden = ("selector",) if vision else _POINT
    props = {
        k: {key: v for key, v in p.items() if key != "description"}
        for k, p in params["properties"].items()
        if k not in hidden
    }
    out: dict[str, Any] = {"type": "object", "properties": props}
    if params.get("required"):
        out["required"] = params["required"]
    doc = " ".join((ACTION_MODELS[name].__doc__ or name).split())
    return ToolDef(name, doc.split(". ")[0].rstrip("."), out)


def _single(names: list[str], vision: bool) -> ToolDef:
    lines = [
        f"{a['name']}{a['signature']}: {a['description']}"
        for a in action_catalog(vision)
        if a["name"] in names
    ]
    return ToolDef(
        SINGLE_TOOL_NAME,
        "Run one browser action: `action` is its name, `params` its parameters "
        "(? = optional). Target elements by their index [N].\n" + "\n".join(lines),
        {
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": [*names]},
                "params": {"type": "object", "description": 'The action\'s parameters, e.g. {"index": 3}.'},
            },
            "required": ["action", "params"],
        },
    )


def tool_schemas(
    names: Iterable[str] | None = None, *, style: ToolStyle = "full", vision: bool = False
) -> list[ChatTool]:
    """The tools for ``names`` (default: every action, in ``ACTION_NAMES`` order) in the given style."""
    chosen = list(ACTION_NAMES if names is None else names)
    for name in chosen:
        action_schema(name)  # KeyError for an unknown name
    if style == "single":
        tools = [_single(chosen, vision)]
    elif style == "compact":
        tools = [_compact(name, vision) for name in chosen]
    else:
        tools = [ToolDef(name, _description(name), action_schema(name)) for name in chosen]
    return [tool.function() for tool in tools]
