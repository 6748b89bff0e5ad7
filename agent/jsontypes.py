"""JSON values as pydantic types them, shared by every room."""

from __future__ import annotations

from pydantic import JsonValue

JsonObject = dict[str, JsonValue]
