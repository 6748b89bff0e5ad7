"""Structured tool output: the pydantic models whose JSON schemas are the tools' ``outputSchema`` and whose
dumps are their results' ``structuredContent``, so a client reads Kite's results as data without parsing the
text (which every result still carries, for clients that read text).

One source: the schemas are made from the models (the page's own models where they exist: ``Effects``,
``TabInfo``, ``ReadResult``), once per model, never written by hand; a tool lists the compact form
(``output_schema``), the data validates against the whole schema too (``full_schema``).
A tool whose answer is not data (screenshot, wait_for, dialog) has no ``outputSchema``. A failed call has
none either: it is ``isError`` with the typed ``{"error", "message"}`` text.

``redacted`` takes every secret value out of a result's data as ``_redact`` does from its text: a page that
echoes a secret (in its URL, its title, a field) must not hand it to the client inside structured output.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import mcp_types as types
from pydantic import BaseModel, ConfigDict, Field, JsonValue

from kite_browser.agent.base.toolset import JsonObject
from kite_browser.agent.browser.observation import Effects, Observation, TabInfo, role_word
from kite_browser.agent.browser.reader import ReadResult

Content = list[types.ContentBlock]


@dataclass(frozen=True)
class Reply:
    """What a tool answers: its content blocks (text, images) and, for a tool with an output model, its data."""

    content: Content
    data: BaseModel | None = None


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ElementOut(_Out):
    ref: int
    role: str
    name: str


class SnapshotOut(_Out):
    """The page a snapshot showed: its URL and title, and the elements it listed (their refs)."""

    url: str
    title: str
    elements: list[ElementOut]
    above: int = Field(0, description="Elements above the viewport, not listed.")
    below: int = Field(0, description="Elements below the viewport, not listed.")


class ActOut(_Out):
    """A page action's outcome: what the executor verified, and what the answer's text goes on with."""

    ok: bool
    message: str
    changed: bool = Field(description="The page verifiably changed.")
    effects: Effects
    data: dict[str, JsonValue] = Field(
        default_factory=dict, description="The action's own payload (evaluate: the script's value)."
    )
    page: Literal["unchanged", "diff", "snapshot"] = Field(
        description="What the text gives after the effects: nothing, changed element lines, the new snapshot."
    )


class TabsOut(_Out):
    tabs: list[TabInfo]


OUTPUTS: dict[str, type[BaseModel]] = {"snapshot": SnapshotOut, "read": ReadResult, "tabs": TabsOut}
"""The output model of each of the server's own tools whose answer is data (every page action's is ``ActOut``)."""


def snapshot_out(obs: Observation, refs: list[int]) -> SnapshotOut:
    """The snapshot's data: the elements it listed (``refs``, in its order) by role and name."""
    by_ref = {e.index: e for e in obs.elements}
    s = obs.summary
    elements = [
        ElementOut(ref=r, role=role_word(by_ref[r]), name=by_ref[r].name) for r in refs if r in by_ref
    ]
    return SnapshotOut(url=obs.url, title=s.title, elements=elements, above=s.above, below=s.below)


def _lean(node: object) -> object:
    """A schema without ``title`` keywords (a property named "title" stays: its value is a schema)."""
    if isinstance(node, dict):
        return {k: _lean(v) for k, v in node.items() if not (k == "title" and isinstance(v, str))}
    if isinstance(node, list):
        return [_lean(v) for v in node]
    return node


@functools.cache
def _schema(model: type[BaseModel]) -> JsonObject:
    lean = _lean(model.model_json_schema(mode="serialization"))
    assert isinstance(lean, dict)
    return lean


def full_schema(model: type[BaseModel]) -> JsonObject:
    """The model's whole JSON schema (nested models under ``$defs``, descriptions, defaults), a fresh copy."""
    return copy.deepcopy(_schema(model))


_DROPPED = ("title", "description", "default", "additionalProperties")


def _field(node: JsonValue, defs: JsonObject) -> JsonObject:
    """A top-level property's schema, compact: its type (an object or array without its insides), its enum;
    ``anyOf`` a type and null as one type list."""
    while isinstance(node, dict) and isinstance(ref := node.get("$ref"), str):
        node = defs.get(ref.rsplit("/", 1)[-1])
    if not isinstance(node, dict):
        return {}
    options = node.get("anyOf")
    if isinstance(options, list):
        parts = [_field(o, defs) for o in options]
        kinds: list[JsonValue] = [p.get("type") for p in parts]
        if all(isinstance(k, str) for k in kinds) and all(len(p) == 1 for p in parts[1:]):
            return {**parts[0], "type": kinds}
        listed: list[JsonValue] = [*parts]
        return {"anyOf": listed}
    if node.get("type") in ("object", "array"):
        return {"type": node["type"]}
    return {k: v for k, v in node.items() if k not in _DROPPED}


@functools.cache
def _compact(model: type[BaseModel]) -> JsonObject:
    full = _schema(model)
    defs, props = full.get("$defs", {}), full.get("properties", {})
    assert isinstance(defs, dict) and isinstance(props, dict)
    fields: JsonObject = {name: _field(p, defs) for name, p in props.items()}
    return {"type": "object", "properties": fields}


def output_schema(model: type[BaseModel]) -> JsonObject:
    """The tool's ``outputSchema``, compact (a fresh copy): the result's top-level fields with their types
    and enums (which are required is left to the full schema), the nested objects (an action's ``effects``,
    a snapshot's ``elements``) as bare objects and arrays, no descriptions. Every tool's definition costs
    each client tokens every turn, and the whole schema of a page action's result (``full_schema(ActOut)``,
    in each action tool) costs many times more; the data is the same either way and
    validates against both."""
    return copy.deepcopy(_compact(model))


SchemaForm = Literal["compact", "full", "none"]
STRUCTURED_SINCE = "2025-06-18"
"""The first protocol version with ``outputSchema`` and ``structuredContent``: older clients get text only."""


def schema_of(model: type[BaseModel] | None, form: SchemaForm = "compact") -> JsonObject | None:
    """The ``outputSchema`` a tool lists in ``form`` (``mcp.output_schemas``); None: it lists none."""
    if model is None or form == "none":
        return None
    return full_schema(model) if form == "full" else output_schema(model)


def redacted(data: JsonValue, redact: Callable[[str], str]) -> JsonValue:
    """``data`` with ``redact`` applied to every string in it, and to every number or key whose text it
    changes (such a number becomes the redacted string: no secret survives for the sake of a type)."""
    if isinstance(data, str):
        return redact(data)
    if isinstance(data, dict):
        return {redact(k): redacted(v, redact) for k, v in data.items()}
    if isinstance(data, list):
        return [redacted(v, redact) for v in data]
    if isinstance(data, (int, float)) and not isinstance(data, bool):
        text = redact(str(data))
        return data if text == str(data) else text
    return data
