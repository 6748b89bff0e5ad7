"""Kite's browser core as tools for other agents: the module system and the built-in modules.

``Toolbox`` is the entry point for a framework author; ``agent.modules.base`` defines the module interface.
"""

from kite_browser.agent.modules.base import (
    CallContext,
    KiteModule,
    ModuleRuntime,
    ModuleState,
    Params,
    Tool,
    ToolError,
    ToolModule,
    WebComponent,
)
from kite_browser.agent.modules.registry import ModuleRegistry
from kite_browser.agent.modules.toolbox import Toolbox

__all__ = [
    "CallContext",
    "KiteModule",
    "ModuleRegistry",
    "ModuleRuntime",
    "ModuleState",
    "Params",
    "Tool",
    "ToolError",
    "ToolModule",
    "Toolbox",
    "WebComponent",
]
