"""Kite, an autonomous browser agent: the one import root of everything Kite installs.

``kite_browser.agent`` is the agent, its browser and its faces; ``kite_browser.safety`` the safety policy;
``kite_browser.evals`` the suites, the bundled sites and the benchmarks. The Python API's names are also
offered here, imported lazily::

    from kite_browser import Agent, LiteLLMModel, load_config

In a checkout this folder holds links to the top-level ``agent/``, ``safety/`` and ``evals/`` folders; the
wheel installs the three as sub-packages of ``kite_browser`` (no other top-level name).
"""

from __future__ import annotations

import importlib
import os as _os
from typing import Any

# The one place that sets litellm's environment: every module of Kite is imported under this package, so this
# runs before anything imports litellm (which would fetch its model cost map from the network otherwise).
_os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def __getattr__(name: str) -> Any:
    agent = importlib.import_module("kite_browser.agent")
    if name in agent.__all__ or name == "__version__":
        return getattr(agent, name)
    raise AttributeError(f"module 'kite_browser' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *importlib.import_module("kite_browser.agent").__all__])
