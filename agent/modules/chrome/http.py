"""The chrome module's HTTP API (seed 000), mounted by the server at ``/api/modules/chrome``:

GET ``/browsers``, GET ``/browsers/{id}``, GET ``/browsers/{id}/tabs``, GET ``/tabs/{id}/screenshot``,
POST ``/browsers/{id}/close``, POST ``/tabs/{id}/close``. Errors answer the typed error object with 404 (an
unknown browser or tab) or 400. FastAPI is imported here only, when the server asks for the router.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from kite_browser.agent.base.toolset import JsonObject
from kite_browser.agent.modules.base import CallContext

if TYPE_CHECKING:
    from kite_browser.agent.modules.chrome.module import ChromeModule


def router(module: ChromeModule) -> APIRouter:
    api = APIRouter()
    ctx = CallContext(caller="http")

    async def call(tool: str, args: dict[str, Any]) -> Any:
        from kite_browser.agent.modules.base import ToolError

        try:
            return await module.execute(ctx, tool, args)
        except ToolError as exc:
            status = 404 if exc.error.endswith("_not_found") else 400
            return JSONResponse(exc.to_dict(), status_code=status)

    @api.get("/browsers")
    async def browsers() -> JsonObject:
        return {"browsers": [b.info() for b in list(module.m.browsers.values())]}

    @api.get("/browsers/{browser_id}")
    async def browser(browser_id: str) -> Any:
        out = await call("chrome_list_tabs", {"browserId": browser_id})
        if isinstance(out, JSONResponse):
            return out
        return {**module.m.browsers[browser_id].info(), "tabs": out["tabs"]}

    @api.get("/browsers/{browser_id}/tabs")
    async def tabs(browser_id: str) -> Any:
        return await call("chrome_list_tabs", {"browserId": browser_id})

    @api.get("/tabs/{tab_id}/screenshot")
    async def screenshot(tab_id: str) -> Any:
        return await call("chrome_screenshot", {"tabId": tab_id})

    @api.post("/browsers/{browser_id}/close")
    async def close_browser(browser_id: str) -> Any:
        return await call("chrome_close", {"browserId": browser_id})

    @api.post("/tabs/{tab_id}/close")
    async def close_tab(tab_id: str) -> Any:
        return await call("chrome_close_tab", {"tabId": tab_id})

    return api
