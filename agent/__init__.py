"""Kite: an autonomous browser agent.

The Python API::

    from kite_browser.agent import Agent, LiteLLMModel, load_config

    result = await Agent(load_config(), model=LiteLLMModel("openai/gpt-4o-mini")).run("…", start_url="…")

Names are imported lazily, so ``import kite_browser.agent`` stays cheap. Importing any part of Kite never touches the
network: litellm is told to use its bundled model cost map before anything imports it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if not __name__.startswith("kite_browser."):
    raise ImportError(
        f"import {__name__!r} as 'kite_browser.{__name__}' (the command line: 'kite' or 'python -m kite_browser.agent'):"
        " under its bare name each of its modules would load a second time, beside the copy the rest of Kite uses"
    )


__version__ = "0.1.0"

_EXPORTS = {
    "Agent": "kite_browser.agent.run.loop",
    "RunResult": "kite_browser.agent.run.record",
    "KiteConfig": "kite_browser.agent.config",
    "load_config": "kite_browser.agent.config",
    "Model": "kite_browser.agent.protocols",
    "Environment": "kite_browser.agent.protocols",
    "ModelView": "kite_browser.agent.llm.model",
    "PastAction": "kite_browser.agent.llm.model",
    "LiteLLMModel": "kite_browser.agent.llm.client",
    "LLMReply": "kite_browser.agent.llm.client",
    "FunctionModel": "kite_browser.agent.llm.testing",
    "ScriptedModel": "kite_browser.agent.llm.testing",
}

__all__ = [
    "Agent",
    "Environment",
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
    from kite_browser.agent.config import KiteConfig, load_config
    from kite_browser.agent.llm.client import LiteLLMModel, LLMReply
    from kite_browser.agent.llm.model import ModelView, PastAction
    from kite_browser.agent.llm.testing import FunctionModel, ScriptedModel
    from kite_browser.agent.protocols import Environment, Model
    from kite_browser.agent.run.loop import Agent
    from kite_browser.agent.run.record import RunResult


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'agent' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
