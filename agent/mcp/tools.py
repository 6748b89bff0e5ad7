"""The MCP tools: one pydantic argument model per tool, a one-line description written for a model, and
annotations that are true. ``TOOLS`` is the one registry, each tool a ``ToolDef`` (``agent/base/toolset.py``);
the JSON schemas sent to clients come from the models (``model_json_schema``), never written by hand: the
arguments' here, the structured results' (``outputSchema``: the page actions, snapshot, read, tabs) in
results.py.

The page actions' tools are derived from the action registry (each action's ``ToolFace``:
``agent/browser/tool_face.py``), in the model's menu order (``ACTIONS``: the action each runs); an action
without a face is in ``NOT_OFFERED`` with the reason. The tools that are the MCP server's own (snapshot, tabs, screenshot, wait_for, read,
dialog) follow, with their argument models here.

Annotations: a tool that only reads the page already loaded is ``readOnlyHint`` and not ``openWorldHint``;
a tool that can make the page send requests (click, type into a live form, navigate ...) is
``openWorldHint``; ``destructiveHint`` marks the tools that can submit, delete or send data (a click can
press "Delete account"), not those that only move focus, scroll or edit a field.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Annotated, Literal

from mcp_types import Tool, ToolAnnotations
from pydantic import BaseModel, Field

from kite_browser.agent.base.toolset import LOADS, READS, ToolArgs, ToolDef, ToolHints
from kite_browser.agent.browser.actions import ActionSpec
from kite_browser.agent.browser.exec.spec import REF_WORDS
from kite_browser.agent.browser.tool_face import args_schema, face_tools, offered
from kite_browser.agent.mcp.render import MAX_TEXT_CHARS, TEXT_CHARS
from kite_browser.agent.mcp.results import OUTPUTS, ActOut, SchemaForm, schema_of

Ref = Annotated[int, Field(ge=0, description=REF_WORDS)]


class SnapshotArgs(ToolArgs):
    visible_only: bool = Field(True, description="Only the viewport (false: the whole page).")
    query: str | None = Field(
        None, description="Keep only elements whose text contains this (case-insensitive)."
    )
    max_text: int = Field(
        TEXT_CHARS, ge=0, le=MAX_TEXT_CHARS, description="Characters of page text shown between elements."
    )


class TabsArgs(ToolArgs):
    action: Literal["list", "switch", "close", "new"] = "list"
    index: int | None = Field(None, ge=0, description="Tab index (switch, close).")
    url: str | None = Field(None, min_length=1, description="URL to open (new) or a part of one (switch).")


class ScreenshotArgs(ToolArgs):
    full_page: bool = Field(False, description="The whole scrollable page instead of the viewport.")
    ref: Ref | None = Field(None, description="Only this element.")


class WaitForArgs(ToolArgs):
    text: str | None = Field(None, min_length=1, description="Text to wait for.")
    ref: Ref | None = Field(None, description="Element to wait for (disappear only).")
    state: Literal["appear", "disappear"] = "appear"
    timeout_ms: int = Field(5000, ge=0, le=60000)


class ReadArgs(ToolArgs):
    query: str | None = Field(None, description="Keep only the passages about this.")
    page: int = Field(1, ge=1, description="Page of the text (long pages are split).")


class DialogArgs(ToolArgs):
    action: Literal["accept", "dismiss"]
    prompt_text: str | None = Field(None, description="Text to answer prompt() dialogs with when accepting.")


def mcp_annotations(h: ToolHints) -> ToolAnnotations:
    return ToolAnnotations(
        read_only_hint=h.read_only,
        destructive_hint=h.destructive,
        idempotent_hint=h.idempotent,
        open_world_hint=h.open_world,
    )


def mcp_tool(definition: ToolDef, form: SchemaForm = "compact") -> Tool:
    """A tool's definition (any source: ``agent/base/toolset.py``) as the MCP tool clients list: the schema of its
    ``output`` model in ``form`` is the tool's ``outputSchema`` (results.py)."""
    return Tool(
        name=definition.name,
        description=definition.description,
        input_schema=copy.deepcopy(definition.parameters),
        output_schema=schema_of(definition.output, form),
        annotations=mcp_annotations(definition.hints),
    )


NOT_OFFERED: dict[str, str] = {
    "askHuman": "the MCP client is the one to ask its user: it has its own channel to them",
    "screenshot": "the screenshot tool sends the image itself (the action saves a file for the run's record)",
    "wait": "wait_for waits for a text or an element instead of a fixed time",
    "goForward": "not offered: every tool's definition costs each client tokens (go_back and navigate cover it)",
    "refresh": "not offered: every tool's definition costs each client tokens (navigate reloads a URL)",
    "switchTab": "the tabs tool lists, switches to, opens and closes tabs",
    "read": "the read tool answers with the page's text itself, fenced as the page's words, paginated",
    "getElements": "the snapshot tool lists the elements (query keeps the matching ones)",
    "getElementDetails": "the snapshot tool shows each element's details on its line",
    "done": "ends the agent's own run; a tool caller has no run to end",
}
"""The registry's actions the MCP server offers no tool for, and why."""


ACTIONS: dict[str, ActionSpec] = offered()
"""The tools derived from the action registry, by name: the action each runs (the others are the server's own)."""


def _own(name: str, args: type[BaseModel], description: str, hints: ToolHints) -> ToolDef:
    return ToolDef(name, description, args_schema(args), hints, args=args, output=OUTPUTS.get(name))


_OWN = (
    _own("snapshot", SnapshotArgs, "The page as compact lines: its elements [N] in reading order with the text between them.", READS),
    _own("tabs", TabsArgs, "List, switch to, close or open (new, optional url) browser tabs.", LOADS),
    _own("screenshot", ScreenshotArgs, "A PNG screenshot of the viewport, the full page or element [ref].", READS),
    _own("wait_for", WaitForArgs, "Wait until a text appears or disappears (or element [ref] disappears), up to timeout_ms.", READS),
    _own("read", ReadArgs, "The page's main text as compact Markdown, paginated; optional query keeps relevant parts.", READS),
    _own("dialog", DialogArgs, "Choose how JS confirm/prompt dialogs are answered from now on (accept or dismiss).",
         ToolHints(destructive=False, open_world=False, idempotent=True)),
)  # fmt: skip
TOOLS: dict[str, ToolDef] = {
    d.name: d for d in (*(dataclasses.replace(face_tools()[name], output=ActOut) for name in ACTIONS), *_OWN)
}
"""Every tool of the server's own, by name: a page action's outcome is its structured result (``ActOut``)."""
