"""The model a run uses, its capabilities and what follows from them for the prompt (mode, tools, budget)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.browser.tokens import estimate_tokens
from kite_browser.agent.config import KiteConfig
from kite_browser.agent.llm.capabilities import Capabilities, capabilities_for, select_mode
from kite_browser.agent.llm.chat import ChatTool
from kite_browser.agent.llm.schemas import tool_schemas
from kite_browser.agent.run.output import OutputSpec

IMAGE_TOKENS = 1100  # what one 1280x800 screenshot costs a vision model, roughly


@dataclass
class ModelSetup:
    """The model, its capabilities and what follows from them for the prompt."""

    model: str
    caps: Capabilities
    mode: str
    function_calling: bool
    vision: bool
    input_budget: int
    tools: list[ChatTool] | None = None
    tools_tokens: int = 0
    constrained: bool = False
    """Each step's reply schema goes to the server (``agent.llm.reply_schema``): JSON replies only."""

    @classmethod
    def from_config(cls, config: KiteConfig, output: OutputSpec | None = None) -> ModelSetup:
        """``output``: the run's output type, which describes the ``done`` tool's ``data``."""
        llm = config.llm
        if not llm.model:
            raise UsageError("no model configured: set KITE_MODEL or pass --model (see README: Models)")
        caps = capabilities_for(llm.model, llm.api_base, llm)
        mode = select_mode(caps, llm.mode)
        budget = config.agent.max_input_tokens or caps.max_input_tokens
        budget = max(1024, budget - llm.max_output_tokens)
        setup = cls(llm.model, caps, mode, caps.function_calling, mode == "hybrid", budget)
        wants = llm.constrained == "on" or (llm.constrained == "auto" and caps.response_schema)
        setup.constrained = wants and not setup.function_calling
        if setup.function_calling:
            tools = tool_schemas(style=llm.tools, vision=setup.vision)
            setup.tools = output.tools(tools) if output is not None else tools
            setup.tools_tokens = estimate_tokens(llm.model, json.dumps(setup.tools))
        return setup
