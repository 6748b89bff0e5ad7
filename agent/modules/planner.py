"""Module tools for the planner loop: ``agent.module_tools: [run_javascript]`` and ``Agent(config, tools=[fn])``
as one toolset (``agent/base/toolset.py``) the loop offers the model next to the browser actions
(``agent/run/tool_calls.py``).

The listed module tools and the user's own functions run through the Toolbox: the same argument validation
and safety gate as every tool call, with the agent's confirmer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kite_browser.agent.base.toolset import JsonObject, ToolDef
from kite_browser.agent.config import KiteConfig
from kite_browser.agent.modules.toolbox import Toolbox
from kite_browser.safety.confirm import Confirmer


class ModuleToolset:
    """The tools of ``config.agent.module_tools`` that an enabled module offers, and ``functions``."""

    def __init__(
        self, config: KiteConfig, confirmer: Confirmer | None, functions: Sequence[Callable[..., object]] = ()
    ) -> None:
        self.wanted = list(config.agent.module_tools)
        self.toolbox = Toolbox(config, confirmer=confirmer, tools=functions, handle_signals=False)
        self.names: set[str] = set()

    async def start(self) -> list[str]:
        """Load the modules; returns warnings (listed tools that no enabled module offers)."""
        await self.toolbox.start()
        registry = self.toolbox.registry
        user = registry.state("user_tools")
        self.names = {t for t in self.wanted if registry.owner(t)} | set(user.tools if user else [])
        return [
            f"agent.module_tools: no enabled module offers {t!r}" for t in self.wanted if t not in self.names
        ]

    def definitions(self) -> list[ToolDef]:
        return [d for d in self.toolbox.registry.definitions() if d.name in self.names]

    async def call(self, name: str, args: JsonObject, /) -> JsonObject:
        """One call (always a JSON object: the result, or a typed error)."""
        return await self.toolbox.call(name, args, caller="agent")

    async def close(self) -> None:
        await self.toolbox.close()


def module_toolset(
    config: KiteConfig, confirmer: Confirmer | None, functions: Sequence[Callable[..., object]] = ()
) -> ModuleToolset | None:
    """The agent's module tools, or None when it is offered none (no module is loaded then)."""
    if not config.agent.module_tools and not functions:
        return None
    return ModuleToolset(config, confirmer, functions)
