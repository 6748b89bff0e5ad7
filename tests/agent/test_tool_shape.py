"""One tool shape: every face offers the same ``ToolDef`` (``agent/base/toolset.py``) in its own form. A module's
OpenAI-form definitions read back into the shape they came from, a definition that is no tool is refused, the
MCP tool and the OpenAI function carry the same schema, and what a caller is given is a copy."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from kite_browser.agent.base.toolset import ToolDef, no_arguments
from kite_browser.agent.llm.schemas import tool_schemas
from kite_browser.agent.mcp.tools import ACTIONS, TOOLS, mcp_tool
from kite_browser.agent.modules.loader import find, instantiate

MODULES = ("chrome", "browser", "playwright_browser", "javascript")


@pytest.mark.parametrize("name", MODULES)
def test_a_modules_openai_form_reads_back_into_the_shape_it_came_from(name: str) -> None:
    module = instantiate(find(name)[0])
    defs = module.definitions()
    assert defs and module.tool_definitions() == [d.function() for d in defs]
    for d in defs:
        back = ToolDef.from_function(d.function())
        assert (back.name, back.description, back.parameters) == (d.name, d.description, d.parameters)
        assert d.args is not None  # a module's tool keeps the model its calls are checked against


def test_the_openai_form_may_leave_type_and_parameters_out() -> None:
    d = ToolDef.from_function({"function": {"name": "greet", "description": "Say hello."}})
    assert (d.name, d.description, d.parameters) == ("greet", "Say hello.", no_arguments())


@pytest.mark.parametrize(
    "given",
    [
        {"type": "function", "function": {"name": "has space"}},
        {"type": "function", "function": {"description": "no name"}},
        {"type": "function", "function": {"name": "x", "parameters": "not an object"}},
        {"type": "other", "function": {"name": "x"}},
        ["not", "a", "definition"],
    ],
)
def test_a_definition_that_is_no_tool_is_refused(given: object) -> None:
    with pytest.raises(ValidationError):
        ToolDef.from_function(given)


def test_what_a_caller_is_given_is_a_copy() -> None:
    d = TOOLS["click"]
    offered = d.function()
    offered["function"].setdefault("parameters", {})["properties"] = {}
    assert d.function()["function"].get("parameters") == d.parameters and d.parameters["properties"]


def test_the_mcp_tool_and_the_openai_function_carry_one_schema() -> None:
    for name, d in TOOLS.items():
        tool = mcp_tool(d, "full")
        fn = d.function()["function"]
        assert (tool.name, tool.description, tool.input_schema) == (
            fn["name"],
            fn.get("description"),
            fn.get("parameters"),
        )
        assert (tool.output_schema is not None) == (d.output is not None), name
        assert d.args is not None  # every tool of the server's own checks its arguments with its model
    assert all(TOOLS[name].output is not None for name in ACTIONS)  # a page action answers its outcome


def test_the_models_browser_tools_are_tool_shapes_in_their_openai_form() -> None:
    for style in ("single", "compact", "full"):
        for tool in tool_schemas(style=style):
            d = ToolDef.from_function(tool)
            assert d.function() == tool
