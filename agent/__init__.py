"""Kite: an autonomous browser agent.

The Python API::

    from agent import Agent, LiteLLMModel, load_config

    result = await Agent(load_config(), model=LiteLLMModel("openai/gpt-4o-mini")).run("…", start_url="…")

Names are imported lazily, so ``import agent`` stays cheap. Importing any part of Kite never touches the
network: litellm is told to use its bundled model cost map before anything imports it.
"""

from __future__ import annotations

import importlib
import os as _os
from typing import TYPE_CHECKING, Any

_os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

__version__ = "0.1.0"

_EXPORTS = {
    "Agent": "agent.loop",
    "RunResult": "agent.record",
    "KiteConfig": "agent.config",
    "load_config": "agent.config",
    "Model": "agent.llm.model",
    "ModelView": "agent.llm.model",
    "PastAction": "agent.llm.model",
    "LiteLLMModel": "agent.llm.client",
    "LLMReply": "agent.llm.client",
    "FunctionModel": "agent.llm.testing",
    "ScriptedModel": "agent.llm.testing",
}

__all__ = [
    "Agent",
    "FunctionModel",
    "KiteConfig",
    "LLMReply",
    "LiteLLMModel",
    "Model",
    "ModelView",
    "PastAction",
    "RunResult",
    "ScriptedModel",
    "load_config",
]

if TYPE_CHECKING:
    from agent.config import KiteConfig, load_config
    from agent.llm.client import LiteLLMModel, LLMReply
    from agent.llm.model import Model, ModelView, PastAction
    from agent.llm.testing import FunctionModel, ScriptedModel
    from agent.loop import Agent
    from agent.record import RunResult


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'agent' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
