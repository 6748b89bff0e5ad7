"""Module endpoints (seed 000) and tool calls: ``GET /api/modules``, ``GET /api/modules/{name}``,
``GET /api/modules/{name}/web-component``, ``GET /api/tools``, ``POST /api/tools/{tool_name}``.

A tool call answers what ``Toolbox.call`` returns (the result, or the typed error object); the HTTP status
tells the kind: 200 a result, 404 ``unknown_tool`` / ``*_not_found``, 403 ``blocked`` / ``declined``, 504
``tool_timeout``, 400 any other error of the call.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from kite_browser.agent.base.jsontypes import JsonObject
from kite_browser.agent.base.toolset import ChatTool, is_error
from kite_browser.agent.modules.base import CallContext, ModuleState, WebComponent
from kite_browser.agent.modules.registry import ModuleRegistry
from kite_browser.agent.server.confirm import HttpConfirmer, answer_or_raise
from kite_browser.agent.server.errors import ApiError, responses
from kite_browser.agent.server.run_models import (
    ConfirmationAnswer,
    ConfirmationList,
    ConfirmationResult,
)


class ModuleInfo(ModuleState):
    web_component: bool = False
    """The module has a panel: GET /api/modules/{name}/web-component."""
    http: bool = False
    """The module has its own routes under /api/modules/{name}/."""


class ModuleList(BaseModel):
    modules: list[ModuleInfo]


class ModuleDetail(ModuleInfo):
    definitions: list[ChatTool] = Field(default_factory=list)
    """The module's tools as OpenAI-style function definitions (name, description, JSON Schema parameters)."""


class ToolInfo(BaseModel):
    module: str
    definition: ChatTool


class ToolList(BaseModel):
    tools: list[ToolInfo]


def _info(registry: ModuleRegistry, state: ModuleState) -> ModuleInfo:
    module = registry.module(state.name)
    return ModuleInfo(
        **state.model_dump(),
        web_component=module is not None and callable(getattr(module, "web_component", None)),
        http=module is not None and callable(getattr(module, "http_router", None)),
    )


def _known(registry: ModuleRegistry, name: str) -> ModuleState:
    state = registry.state(name)
    if state is None:
        raise ApiError(
            404,
            "unknown_module",
            f"no module named {name!r} is enabled",
            module=name,
            available=[s.name for s in registry.states()],
        )
    return state


def tool_status(result: JsonObject) -> int:
    if not is_error(result):
        return 200
    error = str(result["error"])
    if error == "unknown_tool" or error.endswith("_not_found"):
        return 404
    if error in ("blocked", "declined"):
        return 403
    if error == "tool_timeout":
        return 504
    return 400


def router() -> APIRouter:
    api = APIRouter(prefix="/api", tags=["modules"])

    def registry_of(request: Request) -> ModuleRegistry:
        registry: ModuleRegistry = request.app.state.kite.registry
        return registry

    @api.get("/modules", summary="The enabled modules with their state and tool counts")
    async def modules(request: Request) -> ModuleList:
        registry = registry_of(request)
        return ModuleList(modules=[_info(registry, s) for s in registry.states()])

    @api.get("/modules/{name}", summary="One module: state, tools and their definitions")
    async def module(name: str, request: Request) -> ModuleDetail:
        registry = registry_of(request)
        state = _known(registry, name)
        defs = [d.function() for d in registry.definitions(state.tools)]
        return ModuleDetail(**_info(registry, state).model_dump(), definitions=defs)

    @api.get("/modules/{name}/web-component", summary="The module's web panel (HTML, CSS, JS)")
    async def web_component(name: str, request: Request) -> WebComponent:
        registry = registry_of(request)
        _known(registry, name)
        for comp in registry.web_components():
            if comp.module_name == name:
                return comp
        raise ApiError(404, "no_web_component", f"module {name!r} has no web component", module=name)

    @api.get("/tools", summary="Every enabled tool with its module and definition")
    async def tools(request: Request) -> ToolList:
        registry = registry_of(request)
        out = []
        for d in registry.definitions():
            out.append(ToolInfo(module=registry.owner(d.name) or "", definition=d.function()))
        return ToolList(tools=out)

    @api.post(
        "/tools/{tool_name}",
        summary="Call a tool with JSON arguments (the body); answers its result or its typed error",
        responses={
            200: {"description": "The tool's result (a JSON object)."},
            **responses(403, 504),
        },
    )
    async def call_tool(
        tool_name: str,
        request: Request,
        args: dict[str, Any] | None = Body(default=None, description="The tool's arguments (an object)."),
        ask: bool = Query(
            False,
            description="Ask a person (GET /api/tools-confirmations, answered with POST /api/tools-confirmations/{cid}) when the "
            "call needs confirmation, instead of following safety.approve.",
        ),
    ) -> JSONResponse:
        registry = registry_of(request)
        confirmer = None
        if ask:
            state = request.app.state.kite
            confirmer = HttpConfirmer(
                state.console,
                timeout_s=state.config.server.confirm_timeout_s,
                approve=state.config.safety.approve,
                secrets=state.secrets,
            )
        result = await registry.call(tool_name, args or {}, CallContext(caller="http", confirmer=confirmer))
        return JSONResponse(result, status_code=tool_status(result))

    @api.get("/tools-confirmations", summary="The tool console's questions waiting for an answer")
    async def tool_questions(request: Request) -> ConfirmationList:
        console = request.app.state.kite.console
        return ConfirmationList(confirmations=[p.view for p in console.pending.values()])

    @api.post(
        "/tools-confirmations/{cid}",
        summary="Answer a tool call's waiting confirmation (approve or deny)",
        responses=responses(404, 409),
    )
    async def answer_tool_question(
        cid: Annotated[str, PathParam(min_length=1, max_length=64)],
        body: ConfirmationAnswer,
        request: Request,
    ) -> ConfirmationResult:
        console = request.app.state.kite.console
        return answer_or_raise(console, cid, body, f"no tool call waits for confirmation {cid!r}")

    return api
