"""The ``chrome`` module: 15 ``chrome_*`` tools over several browsers and tabs (seed 000).

Safety: a navigation is judged as Kite's ``navigate`` (domains, schemes), ``chrome_evaluate`` as ``executeJS``
(``confirm`` by default). ``chrome_click``, ``chrome_type`` (with a ``delay`` too: the type action's key delay)
and ``chrome_fill`` are the agent's ``click`` and ``type`` run through the browser's ``BrowserEnv``: judged by
its gate on the page's observation (sensitive pages, submit/destructive buttons, password and card fields,
labels that lie), run by its executor with the second look at the target right before the input lands (a
button relabelled "Pay now" meanwhile is asked about again).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from playwright.async_api import ElementHandle, Page

from kite_browser.agent.base.errors import KiteError
from kite_browser.agent.base.toolset import ACTS, LOADS, READS, JsonObject, ToolHints
from kite_browser.agent.browser.actions import Click, ExecuteJS, Type
from kite_browser.agent.browser.observation import ActionResult
from kite_browser.agent.config import BrowserConfig
from kite_browser.agent.modules.action_tools import ActionFor, act_gated, aimed_at
from kite_browser.agent.modules.base import (
    CallContext,
    ModuleRuntime,
    Tool,
    ToolError,
    ToolModule,
    WebComponent,
    validate_args,
)
from kite_browser.agent.modules.chrome import pages
from kite_browser.agent.modules.chrome import params as p
from kite_browser.agent.modules.chrome.manager import BrowserManager
from kite_browser.agent.modules.gate import navigation_plan
from kite_browser.safety.toolset import CallPlan, CallRefusedError

CHROME_ERRORS = {"not_interactable": "element_not_interactable"}
"""The executor's error types under the names the chrome tools have always used (seed 000)."""
WEB = Path(__file__).with_name("web")
RUNS: dict[str, tuple[str, ...]] = {
    "click": ("chrome_click",),
    "type": ("chrome_type", "chrome_fill"),
    "navigate": ("chrome_navigate", "chrome_new_tab"),
    "executeJS": ("chrome_evaluate",),
}
"""The registry's actions the chrome tools run through the browser's env, or are judged as by the same gate."""
_NO_SEED_TOOL = "seed 000 has no chrome tool for it"
NOT_OFFERED: dict[str, str] = {
    "askHuman": "a tool caller is the one to ask its user: it has its own channel to them",
    "screenshot": "chrome_screenshot answers the PNG itself (base64), by CSS selector",
    "wait": "chrome_wait_for waits for an element's state instead of a fixed time",
    "scroll": f"{_NO_SEED_TOOL} (chrome_evaluate can scroll, judged as executeJS)",
    "hover": _NO_SEED_TOOL,
    "select": f"{_NO_SEED_TOOL} (chrome_evaluate can set a select's value, judged as executeJS)",
    "pressKey": _NO_SEED_TOOL,
    "goBack": f"{_NO_SEED_TOOL} (chrome_navigate opens a URL)",
    "goForward": f"{_NO_SEED_TOOL} (chrome_navigate opens a URL)",
    "refresh": f"{_NO_SEED_TOOL} (chrome_navigate opens a URL again)",
    "dragDrop": _NO_SEED_TOOL,
    "uploadFile": _NO_SEED_TOOL,
    "switchTab": "every chrome tool names its tab (tabId); chrome_list_tabs lists them",
    "getElements": "chrome_get_content and chrome_get_text read the page, by CSS selector",
    "getElementDetails": "chrome_get_content gives an element's HTML, by CSS selector",
    "read": "chrome_get_text gives the page's visible text",
    "done": "ends the agent's own run; a tool caller has no run to end",
}
"""The registry's actions no chrome tool runs, and why."""
LOCAL = ToolHints(destructive=False, open_world=False)
"""Starts a local browser: no page loaded, nothing of the user's touched."""
ENDS = ToolHints(open_world=False)
"""Closes a browser or tab: its pages and unsaved state are lost."""
UNWATCHED = frozenset({"chrome_evaluate", "chrome_close_tab"})
"""Tools on a tab not run under its hang watchdog (see ``ChromeModule.execute``)."""

if TYPE_CHECKING:
    from fastapi import APIRouter


class ChromeModule(ToolModule):
    name = "chrome"

    def __init__(self) -> None:
        self.manager: BrowserManager | None = None

    async def init(self, runtime: ModuleRuntime) -> None:
        await super().init(runtime)
        self.manager = BrowserManager(
            runtime.config, runtime.gate, runtime.pool
        )  # no browser until chrome_launch

    @property
    def m(self) -> BrowserManager:
        if self.manager is None:
            raise RuntimeError("the chrome module was not initialised")
        return self.manager

    async def execute(self, ctx: CallContext, tool_name: str, args: JsonObject) -> JsonObject:
        """A call on a tab runs under that tab's hang watchdog (the env's ``guarded``, the rule the agent's
        own steps run under): a page whose script never yields costs ``browser.hang_timeout_ms``, then the
        tab is closed and the call answers ``page_unresponsive``, instead of holding the call until
        ``module_settings.call_timeout_s``. ``chrome_evaluate`` stops its own runaway scripts and keeps the
        tab; closing a tab is how a stuck one is let go."""
        tool = self._tool_map().get(tool_name)
        tab_id = args.get("tabId") if isinstance(args, dict) else None
        if tool is None or tool_name in UNWATCHED or not isinstance(tab_id, str):
            return await super().execute(ctx, tool_name, args)
        params = validate_args(tool_name, tool.params, args)
        env = self.m.env_of(self.m.tab(tab_id))
        deadline = self.runtime.config.module_settings.call_timeout_s if self.runtime else None
        try:
            return await env.guarded(self.run_tool(ctx, tool, params), what=tool_name, deadline_s=deadline)
        except ToolError:
            raise
        except KiteError as exc:
            raise ToolError(exc.type, f"{tool_name}: {exc.message}", tool=tool_name, tabId=tab_id) from exc

    def tools(self) -> Sequence[Tool]:
        T = Tool  # hints: what any call of the tool can do (see ToolHints)
        return [
            T("chrome_launch", "Start a new headless Chrome browser; returns its browserId and first tabId.", p.LaunchParams, self.launch, hints=LOCAL),
            T("chrome_close", "Close a browser instance and all its tabs.", p.BrowserParams, self.close, hints=ENDS),
            T("chrome_new_tab", "Open a new tab in a browser (optionally at a URL).", p.NewTabParams, self.new_tab, hints=LOADS, judge=self.judge_new_tab),
            T("chrome_close_tab", "Close a tab.", p.TabParams, self.close_tab, hints=ENDS),
            T("chrome_list_tabs", "List the tabs of a browser.", p.BrowserParams, self.list_tabs, hints=READS),
            T("chrome_navigate", "Open a URL in a tab and wait for it to load.", p.NavigateParams, self.navigate, hints=LOADS, judge=self.judge_navigate),
            T("chrome_get_url", "The current URL of a tab.", p.TabParams, self.get_url, hints=READS),
            T("chrome_screenshot", "A PNG screenshot (base64) of a tab, the full page or one element.", p.ScreenshotParams, self.screenshot, hints=READS),
            T("chrome_get_content", "The HTML of the page or of one element.", p.ContentParams, self.get_content, hints=READS),
            T("chrome_get_text", "The visible text of the page or of one element.", p.ContentParams, self.get_text, hints=READS),
            T("chrome_click", "Click an element (CSS selector) with a real mouse click.", p.ClickParams, self.click, hints=ACTS),
            T("chrome_type", "Type text into an element; appends to its current value.", p.TypeParams, self.type, hints=LOADS),
            T("chrome_fill", "Clear an input and fill in a new value.", p.FillParams, self.fill, hints=LOADS),
            T("chrome_evaluate", "Run JavaScript in the page and return its JSON value.", p.EvaluateParams, self.evaluate, "confirm", hints=ACTS, judge=self.judge_evaluate),
            T("chrome_wait_for", "Wait until an element is attached, detached, visible or hidden.", p.WaitForParams, self.wait_for, hints=READS),
        ]  # fmt: skip

    async def shutdown(self) -> None:
        if self.manager is not None:
            await self.manager.shutdown()

    def web_component(self) -> WebComponent:
        return WebComponent(
            module_name=self.name,
            display_name="Chrome browsers",
            icon="🌐",
            panel_html=(WEB / "panel.html").read_text(encoding="utf-8"),
            panel_css=(WEB / "panel.css").read_text(encoding="utf-8"),
            panel_js=(WEB / "panel.js").read_text(encoding="utf-8"),
        )

    def http_router(self) -> APIRouter | None:
        """The seed's HTTP endpoints as a FastAPI router (None when FastAPI is not installed)."""
        try:
            from kite_browser.agent.modules.chrome.http import router
        except ImportError:
            return None
        return router(self)

    # ------------------------------------------------------------------ browsers and tabs
    async def launch(self, ctx: CallContext, a: p.LaunchParams) -> JsonObject:
        inst, tab = await self.m.launch(a.headless, a.args)
        return {**inst.info(), "tabId": tab.id}

    async def close(self, ctx: CallContext, a: p.BrowserParams) -> JsonObject:
        await self.m.close(a.browserId)
        return {"browserId": a.browserId, "closed": True}

    async def judge_new_tab(self, ctx: CallContext, a: p.NewTabParams) -> CallPlan:
        self.m.browser(a.browserId)
        return self._navigation("chrome_new_tab", a.url) if a.url else CallPlan()

    async def new_tab(self, ctx: CallContext, a: p.NewTabParams) -> JsonObject:
        tab = await self.m.new_tab(a.browserId)
        if a.url:
            await pages.navigate(tab.page, pages.check_url(a.url, self.gate_config()), "load", 30000)
        return await tab.info()

    async def close_tab(self, ctx: CallContext, a: p.TabParams) -> JsonObject:
        await self.m.close_tab(a.tabId)
        return {"tabId": a.tabId, "closed": True}

    async def list_tabs(self, ctx: CallContext, a: p.BrowserParams) -> JsonObject:
        inst = self.m.browser(a.browserId)
        return {"browserId": inst.id, "tabs": [await t.info() for t in list(inst.tabs.values())]}

    # ------------------------------------------------------------------ navigation and reading
    def _navigation(self, tool: str, url: str) -> CallPlan:
        return navigation_plan(self.gate, tool, pages.check_url(url, self.gate_config()))

    def gate_config(self) -> BrowserConfig:
        assert self.runtime is not None
        return self.runtime.config.browser

    async def judge_navigate(self, ctx: CallContext, a: p.NavigateParams) -> CallPlan:
        self.m.tab(a.tabId)
        return self._navigation("chrome_navigate", a.url)

    async def navigate(self, ctx: CallContext, a: p.NavigateParams) -> JsonObject:
        tab = self.m.tab(a.tabId)
        url = pages.check_url(a.url, self.gate_config())
        out = await pages.navigate(tab.page, url, a.waitUntil, a.timeoutMs)
        return {"tabId": tab.id, **out}

    async def get_url(self, ctx: CallContext, a: p.TabParams) -> JsonObject:
        tab = self.m.tab(a.tabId)
        return {"tabId": tab.id, "url": tab.page.url}

    async def screenshot(self, ctx: CallContext, a: p.ScreenshotParams) -> JsonObject:
        tab = self.m.tab(a.tabId)
        png = await pages.screenshot(tab.page, a.fullPage, a.selector)
        return {"tabId": tab.id, "format": "png", "bytes": len(png), "data": pages.b64(png)}

    async def get_content(self, ctx: CallContext, a: p.ContentParams) -> JsonObject:
        tab = self.m.tab(a.tabId)
        return {"tabId": tab.id, "html": await pages.content(tab.page, a.selector)}

    async def get_text(self, ctx: CallContext, a: p.ContentParams) -> JsonObject:
        tab = self.m.tab(a.tabId)
        return {"tabId": tab.id, "text": await pages.text(tab.page, a.selector)}

    # ------------------------------------------------------------------ interaction
    async def _act(
        self, ctx: CallContext, tool: str, tab_id: str, selector: str, make: ActionFor, wait_ms: int
    ) -> tuple[Page, ElementHandle, ActionResult]:
        """Find ``selector`` in the tab, observe the page and act on the element through the browser's env
        (by its index when the observation lists it: then it gets the second look). A refusal or a failure
        is a typed ToolError."""
        tab = self.m.tab(tab_id)
        handle = await pages.find(tab.page, selector, wait_ms)
        env = self.m.env_of(tab)
        action, obs = await aimed_at(env, handle, make)
        try:
            acted = await act_gated(env, action, obs, ctx.confirmer)
        except CallRefusedError as exc:
            gate = exc.verdict.gate
            level = str(gate.decision.level)
            kind = CHROME_ERRORS.get(exc.refused, exc.refused)
            raise ToolError(
                kind, f"{tool}: {gate.message}", tool=tool, selector=selector, level=level
            ) from None
        result = acted.result
        if not result.ok:
            assert result.error is not None
            kind = CHROME_ERRORS.get(result.error.error, result.error.error)
            raise ToolError(kind, f"{tool}: {result.error.message}", tool=tool, selector=selector)
        return tab.page, handle, result

    async def click(self, ctx: CallContext, a: p.ClickParams) -> JsonObject:
        url_before = self.m.tab(a.tabId).page.url

        def make(index: int | None) -> Click:
            return Click(index=index) if index is not None else Click(selector=a.selector)

        wait = a.timeoutMs if a.waitForSelector else 0
        page, _, _ = await self._act(ctx, "chrome_click", a.tabId, a.selector, make, wait)
        return {
            "tabId": a.tabId,
            "clicked": a.selector,
            "how": "mouse",
            "urlBefore": url_before,
            "url": page.url,
        }

    async def _type(
        self, ctx: CallContext, tool: str, tab_id: str, selector: str, text: str, append: bool, delay: int = 0
    ) -> JsonObject:
        def make(index: int | None) -> Type:
            if index is not None:
                return Type(index=index, text=text, append=append, repeat=append, delay=delay)
            return Type(selector=selector, text=text, append=append, repeat=append, delay=delay)

        _, handle, _ = await self._act(ctx, tool, tab_id, selector, make, pages.ACTION_TIMEOUT_MS)
        return {"tabId": tab_id, "selector": selector, "value": await pages.value_of(handle)}

    async def type(self, ctx: CallContext, a: p.TypeParams) -> JsonObject:
        return await self._type(ctx, "chrome_type", a.tabId, a.selector, a.text, append=True, delay=a.delay)

    async def fill(self, ctx: CallContext, a: p.FillParams) -> JsonObject:
        return await self._type(ctx, "chrome_fill", a.tabId, a.selector, a.value, append=False)

    async def judge_evaluate(self, ctx: CallContext, a: p.EvaluateParams) -> CallPlan:
        """``chrome_evaluate`` is judged as Kite's ``executeJS`` on its tab's page, before it runs."""
        page = self.m.tab(a.tabId).page
        return CallPlan(action=ExecuteJS(code=a.script), url=page.url, about={"tool": "chrome_evaluate"})

    async def evaluate(self, ctx: CallContext, a: p.EvaluateParams) -> JsonObject:
        page = self.m.tab(a.tabId).page
        assert self.runtime is not None
        value = await pages.evaluate(page, a.script, self.runtime.config.browser.js_timeout_ms)
        return {"tabId": a.tabId, "result": value}

    async def wait_for(self, ctx: CallContext, a: p.WaitForParams) -> JsonObject:
        page = self.m.tab(a.tabId).page
        await pages.wait_for(page, a.selector, a.state, a.timeoutMs)
        return {"tabId": a.tabId, "selector": a.selector, "state": a.state}
