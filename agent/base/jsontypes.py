"""JSON as a type: the one place Kite names a JSON value and a JSON object (a leaf, shared by every room)."""

from __future__ import annotations

from pydantic import JsonValue

JsonObject = dict[str, JsonValue]
"""A JSON object: a call's arguments, a tool's JSON result, a JSON schema, a record's line."""

__all__ = ["JsonObject", "JsonValue"]
