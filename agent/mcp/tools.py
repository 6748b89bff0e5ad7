"""The MCP tools: one pydantic argument model per tool, a one-line description written for a model, and
annotations that are true. ``TOOLS`` is the one registry; the JSON schemas sent to clients come from the
models (``model_json_schema``), never written by hand.

Annotations: a tool that only reads the page already loaded is ``readOnlyHint`` and not ``openWorldHint``;
a tool that can make the page send requests (click, type into a live form, navigate ...) is
``openWorldHint``; ``destructiveHint`` marks the tools that can submit, delete or send data (a click can
press "Delete account"), not those that only move focus, scroll or edit a field.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from functools import cached_property
from typing import Annotated, Any, Literal

from mcp_types import Tool, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from kite_browser.agent.mcp.render import MAX_TEXT_CHARS, TEXT_CHARS
from kite_browser.agent.modules.base import READS, ToolHints

Ref = Annotated[int, Field(ge=0, description="Element number N from the latest snapshot's [N].")]


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NavigateArgs(_Args):
    url: str = Field(
        min_length=1, description="Absolute http(s) URL, or a path relative to the current page."
    )


class SnapshotArgs(_Args):
    visible_only: bool = Field(True, description="Only the viewport (false: the whole page).")
    query: str | None = Field(
        None, description="Keep only elements whose text contains this (case-insensitive)."
    )
    max_text: int = Field(
        TEXT_CHARS, ge=0, le=MAX_TEXT_CHARS, description="Characters of page text shown between elements."
    )


class ClickArgs(_Args):
    ref: Ref
    button: Literal["left", "right", "middle"] = "left"
    double: bool = Field(False, description="Double-click.")


class TypeArgs(_Args):
    ref: Ref | None = Field(None, description="Field to type into; omit for the focused element.")
    text: str = Field(description="Text to type; <secret>name</secret> for a secret you were given.")
    clear: bool = Field(True, description="Replace the field's value (false: append at the caret).")


class SelectArgs(_Args):
    ref: Ref
    value: str | list[str] = Field(description="Option value or visible label; a list for multi-selects.")


class HoverArgs(_Args):
    ref: Ref


class PressKeyArgs(_Args):
    key: str = Field(min_length=1, description="KeyboardEvent.key: Enter, Tab, Escape, ArrowDown, a ...")
    modifiers: list[Literal["ctrl", "alt", "shift", "meta"]] = Field(default_factory=list)


class ScrollArgs(_Args):
    direction: Literal["up", "down", "left", "right"]
    amount: int | None = Field(None, ge=1, le=100000, description="Pixels; default about one screen.")
    ref: Ref | None = Field(None, description="A scrollable element; omit for the page.")


class GoBackArgs(_Args):
    pass


class TabsArgs(_Args):
    action: Literal["list", "switch", "close", "new"] = "list"
    index: int | None = Field(None, ge=0, description="Tab index (switch, close).")
    url: str | None = Field(None, min_length=1, description="URL to open (new) or a part of one (switch).")


class ScreenshotArgs(_Args):
    full_page: bool = Field(False, description="The whole scrollable page instead of the viewport.")
    ref: Ref | None = Field(None, description="Only this element.")


class WaitForArgs(_Args):
    text: str | None = Field(None, min_length=1, description="Text to wait for.")
    ref: Ref | None = Field(None, description="Element to wait for (disappear only).")
    state: Literal["appear", "disappear"] = "appear"
    timeout_ms: int = Field(5000, ge=0, le=60000)


class ReadArgs(_Args):
    query: str | None = Field(None, description="Keep only the passages about this.")
    page: int = Field(1, ge=1, description="Page of the text (long pages are split).")


class EvaluateArgs(_Args):
    code: str = Field(min_length=1, description="A JS expression or function body; `return` a value.")


class UploadFileArgs(_Args):
    ref: Ref
    path: str = Field(min_length=1, description="Path of a local file in an allowed upload folder.")


class DragArgs(_Args):
    from_ref: Ref
    to_ref: Ref


class DialogArgs(_Args):
    action: Literal["accept", "dismiss"]
    prompt_text: str | None = Field(None, description="Text to answer prompt() dialogs with when accepting.")


def mcp_annotations(h: ToolHints) -> ToolAnnotations:
    return ToolAnnotations(
        read_only_hint=h.read_only,
        destructive_hint=h.destructive,
        idempotent_hint=h.idempotent,
        open_world_hint=h.open_world,
    )


@dataclass(frozen=True)
class ToolSpec:
    name: str
    args: type[_Args]
    description: str
    hints: ToolHints

    @cached_property
    def schema(self) -> dict[str, Any]:
        """The arguments' JSON schema, made once (pydantic takes milliseconds per model, on the event loop,
        and clients list the tools often)."""
        schema = self.args.model_json_schema()
        schema.pop("title", None)
        for prop in schema.get("properties", {}).values():
            prop.pop("title", None)
        return schema

    def tool(self) -> Tool:
        return Tool(
            name=self.name,
            description=self.description,
            input_schema=copy.deepcopy(self.schema),
            annotations=mcp_annotations(self.hints),
        )


LOADS = ToolHints(destructive=False)
"""Changes the page (requests may leave) but submits, sends or deletes nothing by itself."""
ACTS = ToolHints()
"""Can submit a form, send data or delete something (a click can press "Delete account")."""
TOOLS: dict[str, ToolSpec] = {
    s.name: s
    for s in (
        ToolSpec("navigate", NavigateArgs, "Open a URL in the current tab; returns the new page's compact snapshot.", LOADS),
        ToolSpec("snapshot", SnapshotArgs, "The page as compact lines: its elements [N] in reading order with the text between them.", READS),
        ToolSpec("click", ClickArgs, "Click element [ref] like a user; returns what changed (and the new snapshot if the page changed).", ACTS),
        ToolSpec("type", TypeArgs, "Type text into field [ref] (replaces its value unless clear=false).", LOADS),
        ToolSpec("select", SelectArgs, "Choose an option of dropdown [ref] by value or visible label.", LOADS),
        ToolSpec("hover", HoverArgs, "Move the mouse over element [ref] (opens hover menus and tooltips).", LOADS),
        ToolSpec("press_key", PressKeyArgs, "Press a key (Enter, Escape, ArrowDown ...) on the focused element; Enter may submit a form.", ACTS),
        ToolSpec("scroll", ScrollArgs, "Scroll the page (or element [ref]) up, down, left or right.", LOADS),
        ToolSpec("go_back", GoBackArgs, "Go back one page in the tab's history.", LOADS),
        ToolSpec("tabs", TabsArgs, "List, switch to, close or open (new, optional url) browser tabs.", LOADS),
        ToolSpec("screenshot", ScreenshotArgs, "A PNG screenshot of the viewport, the full page or element [ref].", READS),
        ToolSpec("wait_for", WaitForArgs, "Wait until a text appears or disappears (or element [ref] disappears), up to timeout_ms.", READS),
        ToolSpec("read", ReadArgs, "The page's main text as compact Markdown, paginated; optional query keeps relevant parts.", READS),
        ToolSpec("evaluate", EvaluateArgs, "Run JavaScript in the page and return its JSON result (asks the user first).", ACTS),
        ToolSpec("upload_file", UploadFileArgs, "Put a local file into file input [ref] (asks the user first).", ACTS),
        ToolSpec("drag", DragArgs, "Drag element [from_ref] onto element [to_ref].", ACTS),
        ToolSpec("dialog", DialogArgs, "Choose how JS confirm/prompt dialogs are answered from now on (accept or dismiss).",
                 ToolHints(destructive=False, open_world=False, idempotent=True)),
    )
}  # fmt: skip
