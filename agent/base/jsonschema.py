"""A pydantic JSON schema flattened for LLM tool definitions: one leaf shared by the action schemas
(agent/llm/schemas.py) and the tool modules (agent/modules/base.py)."""

from __future__ import annotations

from kite_browser.agent.base.jsontypes import JsonObject, JsonValue


def as_object(node: JsonValue) -> JsonObject:
    """``node`` as the JSON object a schema has in that place (a TypeError when it is not one)."""
    if not isinstance(node, dict):
        raise TypeError(f"a JSON schema object was expected, not {type(node).__name__}")
    return node


def flatten(node: JsonValue, defs: JsonObject) -> JsonValue:
    """Inline ``$ref``s, drop titles, reduce ``anyOf [X, null]`` to X (leaving a field out means "not set")."""
    if isinstance(node, list):
        return [flatten(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = dict(as_object(defs[str(node["$ref"]).rsplit("/", 1)[-1]]))
        extra = {k: v for k, v in node.items() if k != "$ref"}
        return flatten({**target, **extra}, defs)
    out: JsonObject = {}
    for key, value in node.items():
        if key in ("title", "$defs"):
            continue
        if key == "properties":
            out[key] = {name: flatten(prop, defs) for name, prop in as_object(value).items()}
        else:
            out[key] = flatten(value, defs)
    variants = out.get("anyOf")
    if isinstance(variants, list) and {"type": "null"} in variants:
        rest = [v for v in variants if v != {"type": "null"}]
        if len(rest) == 1:
            out.pop("anyOf")
            if out.get("default", 0) is None:
                out.pop("default")
            out = {**as_object(rest[0]), **out}
    return out


def flat_schema(schema: JsonObject) -> JsonObject:
    """``schema`` with its ``$defs`` inlined, titles dropped and optional fields as their plain type."""
    return as_object(flatten(schema, as_object(schema.get("$defs", {}))))
