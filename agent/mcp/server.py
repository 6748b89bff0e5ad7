"""The MCP server (the SDK's low-level ``Server``): lists ``TOOLS`` and serves calls with typed errors.

Kite's server keeps state per client session (a browser context, the last snapshot sent), so it speaks the
handshake era of MCP (sessions): its ``server/discover`` answer names only handshake protocol versions and
SDK clients in ``auto`` mode fall back to ``initialize``.

Every failure reaches the client as a tool result with ``isError`` and one JSON object
``{"error": "<snake_case>", "message": ...}``; nothing is ever a traceback in the protocol stream (bugs are
logged to stderr and answered as ``internal_error``).
"""

from __future__ import annotations

import json
import logging
from typing import Any

import mcp_types as types
from mcp.server import Server
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from playwright.async_api import Error as PlaywrightError
from pydantic import ValidationError

from agent import __version__
from agent.errors import BrowserCrashedError, KiteError
from agent.mcp import render
from agent.mcp.calls import Calls, ToolFailure
from agent.mcp.confirm import current_request
from agent.mcp.hub import BrowserHub
from agent.mcp.record import Record
from agent.mcp.tools import TOOLS, mcp_annotations
from agent.modules.base import CallContext, ToolHints, is_error
from agent.modules.registry import ModuleRegistry
from safety.confirm import ConfirmAnswer, Confirmer, ConfirmRequest

log = logging.getLogger("kite.mcp")

INSTRUCTIONS = (
    "Kite drives a real browser. Call snapshot to see the page as a short list of elements [N]; act on them "
    "with click/type/select by ref=N. Actions answer with what changed and, only when the page changed, the "
    "new snapshot (or a diff). A ref from an older page gives a stale_element error with a fresh list."
)


def _invalid(name: str, exc: ValidationError) -> dict[str, Any]:
    problems = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "arguments"
        problems.append(f"{loc}: {err['msg']}")
    return {
        "error": "invalid_arguments",
        "message": f"{name}: " + "; ".join(problems),
        "fields": [".".join(str(p) for p in e["loc"]) for e in exc.errors()],
    }


def _client_key(ctx: Any) -> str | None:
    conn = getattr(ctx.session, "_connection", None)
    return getattr(conn, "session_id", None)


class _RecordingConfirmer:
    """Writes a module tool's confirmation (asked through the server's confirmer) to the run record."""

    def __init__(self, inner: Confirmer, record: Record, client: str, tool: str) -> None:
        self.inner, self.record, self.client, self.tool = inner, record, client, tool

    async def confirm(self, request: ConfirmRequest) -> ConfirmAnswer:
        answer = await self.inner.confirm(request)
        self.record.write(
            "decision",
            client=self.client,
            tool=self.tool,
            action=request.action,
            url=request.url,
            level=request.decision.level.value,
            reasons=request.decision.reasons,
            allowed=answer.approved,
            answer=answer.reason,
        )
        return answer

    async def notify(self, request: ConfirmRequest) -> None:
        await self.inner.notify(request)


class KiteMCP:
    """The server object: ``server`` is the SDK Server; ``hub`` the browser; ``record`` the run record;
    ``modules`` the enabled tool modules, whose tools are offered next to Kite's own."""

    def __init__(self, hub: BrowserHub, record: Record, modules: ModuleRegistry | None = None) -> None:
        self.hub = hub
        self.record = record
        self.modules = modules
        self.calls = Calls(hub, record)
        self.server: Server[Any] = Server(
            "kite",
            version=__version__,
            instructions=INSTRUCTIONS,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
        )
        self.server.add_request_handler("server/discover", types.RequestParams, self._discover)

    async def _discover(self, ctx: Any, params: Any) -> types.DiscoverResult:
        return types.DiscoverResult(
            supported_versions=list(HANDSHAKE_PROTOCOL_VERSIONS),
            capabilities=self.server.get_capabilities(),
            instructions=INSTRUCTIONS,
        )

    def module_tools(self) -> list[types.Tool]:
        """The enabled modules' tools with the hints their modules declare (a name Kite's own tools use is
        left out)."""
        if self.modules is None:
            return []
        out = []
        hints = self.modules.tool_hints()
        for definition in self.modules.tool_definitions():
            fn = definition["function"]
            if fn["name"] in TOOLS:
                continue
            schema = fn.get("parameters") or {"type": "object", "properties": {}}
            out.append(
                types.Tool(
                    name=fn["name"],
                    description=fn.get("description", ""),
                    input_schema=schema,
                    annotations=mcp_annotations(hints.get(fn["name"], ToolHints())),
                )
            )
        return out

    async def _list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[spec.tool() for spec in TOOLS.values()] + self.module_tools())

    async def _module_call(self, name: str, raw: dict[str, Any], client: str) -> list[types.ContentBlock]:
        assert self.modules is not None
        confirmer = _RecordingConfirmer(self.hub.confirmer, self.record, client, name)
        result = await self.modules.call(name, raw, CallContext(caller="mcp", confirmer=confirmer))
        if is_error(result):
            raise ToolFailure(result)
        return [types.TextContent(type="text", text=json.dumps(result, ensure_ascii=False, default=str))]

    async def _call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        name, raw = params.name, params.arguments or {}
        client = _client_key(ctx) or "stdio"
        token = current_request.set(ctx)
        try:
            content = await self._dispatch(ctx, name, raw)
        except ToolFailure as exc:
            return self._failed(name, client, exc.error)
        except KiteError as exc:
            return self._failed(name, client, exc.to_dict())
        except PlaywrightError as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else "browser error"
            return self._failed(name, client, {"error": "browser_error", "message": first})
        except Exception as exc:  # a bug in Kite: log it, answer typed
            log.exception("tool %s failed", name)
            return self._failed(
                name, client, {"error": "internal_error", "message": f"{type(exc).__name__}: {exc}"}
            )
        finally:
            current_request.reset(token)
        self.record.write("call", client=client, tool=name, arguments=raw, ok=True)
        return types.CallToolResult(content=self._redact(content))

    def _redact(self, content: list[types.ContentBlock]) -> list[types.ContentBlock]:
        out: list[types.ContentBlock] = []
        for block in content:
            if isinstance(block, types.TextContent):
                block = types.TextContent(type="text", text=self.hub.secrets.redact(block.text))
            out.append(block)
        return out

    def _failed(self, name: str, client: str, error: dict[str, Any]) -> types.CallToolResult:
        self.record.write("call", client=client, tool=name, ok=False, error=error.get("error"))
        text = self.hub.secrets.redact(render.error_text(error))
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)

    def _names(self) -> list[str]:
        return [*TOOLS, *(t.name for t in self.module_tools())]

    async def _dispatch(self, ctx: Any, name: str, raw: dict[str, Any]) -> list[types.ContentBlock]:
        spec = TOOLS.get(name)
        if spec is None and self.modules is not None and self.modules.owner(name) is not None:
            return await self._module_call(name, raw, _client_key(ctx) or "stdio")
        if spec is None:
            raise ToolFailure(
                {
                    "error": "unknown_tool",
                    "message": f"no tool named {name!r}; tools: {', '.join(self._names())}",
                }
            )
        try:
            args = spec.args.model_validate(raw)
        except ValidationError as exc:
            raise ToolFailure(_invalid(name, exc)) from None
        note = await self.hub.ensure_browser()
        state = await self.hub.client(_client_key(ctx))
        async with state.lock:
            try:
                content = await getattr(self.calls, name)(state, args, _client_key(ctx) or "stdio")
            except BrowserCrashedError as exc:
                raise ToolFailure(
                    {**exc.to_dict(), "message": exc.message + "; the next call starts the browser again"}
                ) from None
        if note:
            content = [types.TextContent(type="text", text=note), *content]
        return content
