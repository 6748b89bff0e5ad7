"""The LLM layer: the ``Model`` protocol, litellm (``LiteLLMModel``), capabilities, tool schemas, reply parsing
and the testing models.

Names are imported lazily so that ``import kite_browser.agent.llm`` stays cheap and never imports litellm by itself.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Model": "model",
    "ModelView": "model",
    "PastAction": "model",
    "resolve_model": "resolve",
    "register_model": "resolve",
    "FunctionModel": "testing",
    "ScriptedModel": "testing",
    "LiteLLMModel": "client",
    "LLMClient": "client",
    "LLMReply": "client",
    "ToolCall": "client",
    "Usage": "client",
    "Capabilities": "capabilities",
    "capabilities_for": "capabilities",
    "select_mode": "capabilities",
    "tool_schemas": "schemas",
    "ParsedReply": "parsing",
    "ParseError": "parsing",
    "parse_reply": "parsing",
    "LLMError": "errors",
    "ContextWindowError": "errors",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'kite_browser.agent.llm' has no attribute {name!r}")
    return getattr(importlib.import_module(f"kite_browser.agent.llm.{module}"), name)
