"""The chat messages Kite sends a model, typed where they cross a seam: the prompt builds them, the loop
passes them on, the run recorder writes them, every ``Model`` (litellm's, the local server's, the test
models) receives them. The OpenAI chat form, which litellm takes for every provider."""

from __future__ import annotations

from typing import Literal, Required

from typing_extensions import TypedDict

from kite_browser.agent.base.toolset import ChatTool, FunctionDef

__all__ = ["ChatMessage", "ChatTool", "ContentPart", "FunctionDef", "ToolCall"]


class ImageUrl(TypedDict):
    url: str
    """A ``data:image/png;base64,…`` URL (Kite sends screenshots inline)."""


class TextPart(TypedDict):
    type: Literal["text"]
    text: str


class ImagePart(TypedDict):
    type: Literal["image_url"]
    image_url: ImageUrl


ContentPart = TextPart | ImagePart


class FunctionCall(TypedDict):
    name: str
    arguments: str
    """The arguments as a JSON text."""


class ToolCall(TypedDict):
    id: str
    type: Literal["function"]
    function: FunctionCall


class ChatMessage(TypedDict, total=False):
    """One message: a role and its content (text, or text and an image); an assistant's tool calls; a tool
    result's call id."""

    role: Required[Literal["system", "user", "assistant", "tool"]]
    content: str | list[ContentPart] | None
    tool_calls: list[ToolCall]
    tool_call_id: str
    name: str
