"""Tool schemas for the LLM, generated from the action models (never written by hand).

``tool_schemas()`` gives one OpenAI-format function per action (the function name is the action name, the
parameters are the action's fields). The parser also accepts the one-tool form ``browser_action {action,
params}`` that some models produce.

The JSON Schema is simplified for the widest provider support: ``$ref`` inlined, titles dropped, and
optional-nullable fields (``anyOf [X, null]``) reduced to ``X`` since leaving them out means "not set".
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

from agent.browser.actions import ACTION_MODELS, ACTION_NAMES
from agent.jsonschema import flat_schema

SINGLE_TOOL_NAME = "browser_action"

_TARGET_HINTS = {
    frozenset(
        {"index", "selector", "x", "y"}
    ): "Target: exactly one of index, selector, or x together with y.",
    frozenset({"index", "selector"}): "Target: exactly one of index or selector.",
}


def _description(name: str) -> str:
    model = ACTION_MODELS[name]
    text = " ".join((model.__doc__ or name).split())
    fields = {f.alias or key for key, f in model.model_fields.items()}
    for keys, hint in _TARGET_HINTS.items():
        if keys <= fields and keys | {"action"} != fields:
            text = f"{text} {hint}"
            break
    return text


@cache
def _parameters(name: str) -> dict[str, Any]:
    schema = ACTION_MODELS[name].model_json_schema(by_alias=True)
    params = flat_schema(schema)
    params.pop("description", None)
    params["properties"].pop("action", None)
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


def tool_schemas(names: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """One OpenAI-format function tool per action, in ``ACTION_NAMES`` order unless ``names`` is given."""
    chosen = list(ACTION_NAMES if names is None else names)
    return [
        {
            "type": "function",
            "function": {"name": name, "parameters": action_schema(name), "description": _description(name)},
        }
        for name in chosen
    ]
