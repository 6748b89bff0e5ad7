"""The ``playwright_browser`` module (seed 004): one tool over named Playwright browser sessions.

``playwright_browser {action: launch|navigate|click|type|screenshot|close|list, browser_id, url, selector,
text, wait_condition, timeout, content_mode, headless}`` answers exactly ``{success, stdout, stderr,
output_files}``; a failure is ``success: false`` with ``stderr`` starting with its snake_case type
(``browser_not_found: ...``, ``element_not_found: ...``). After every action but list and close the page is
saved (``abstract``: interactive controls with selectors + the page text; ``html``: the HTML) and its path
returned.

Safety: each call goes through the one wrapper (``safety/toolset.py``; the tool's ``judge`` says what the step
amounts to, before it runs): a navigation is judged as Kite's ``navigate`` (the domain policy first); a click
or typing is the agent's ``click``/``type`` on the element the selector finds, judged on the page's
observation (sensitive pages, submit buttons, labels that lie) and run through the session's ``BrowserEnv``
(its executor takes the second look at the target right before the input lands). A step on a session's page
is judged and run under the session's lock, so the page judged is the page acted on. A refusal is a
``success: false`` answer (``declined: ...``, ``blocked: ...``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from playwright.async_api import Browser, Locator, Page
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout
from pydantic import BaseModel

from kite_browser.agent.base.errors import KiteError
from kite_browser.agent.base.toolset import JsonObject, ToolHints
from kite_browser.agent.browser.actions import Click, Navigate, Type
from kite_browser.agent.browser.env import BrowserEnv, EnvSafety
from kite_browser.agent.browser.exec.targets import selector_engine
from kite_browser.agent.modules.action_tools import act_judged, aimed_at
from kite_browser.agent.modules.base import CallContext, ModuleRuntime, Tool, ToolError, ToolModule
from kite_browser.agent.modules.chrome.pages import check_url
from kite_browser.agent.modules.gate import navigation_plan
from kite_browser.agent.modules.playwright_browser import files
from kite_browser.agent.modules.playwright_browser.abstract import page_content
from kite_browser.agent.modules.playwright_browser.params import (
    PlaywrightBrowserParams,
    PlaywrightBrowserResult,
)
from kite_browser.safety.secrets import SecretStore
from kite_browser.safety.toolset import CallPlan, Verdict

DESCRIPTION = (
    "Drive named Playwright browser sessions: launch, navigate (http/https), click or type (CSS or XPath "
    "selector), screenshot, close, list. Every answer is {success, stdout, stderr, output_files}; after an "
    "action the page is saved to a file (abstract: its controls with selectors and its text; or html)."
)

T = TypeVar("T")


TOOL = "playwright_browser"
ON_PAGE = frozenset({"navigate", "click", "type", "screenshot"})
"""The actions on a running session's page (judged and run under its lock)."""
TYPE_ERRORS = {"not_interactable": "not_editable"}
"""The executor's error types under the names typing has answered with (seed 004)."""


@dataclass
class Session:
    browser: Browser
    env: BrowserEnv
    """The session's context with its snapshotter, executor and gate (clicks and typing act through it)."""
    page: Page
    headless: bool
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


def locator(page: Page, selector: str) -> Locator:
    return page.locator(selector_engine(selector)).first


class PlaywrightBrowserModule(ToolModule):
    name = "playwright_browser"

    def __init__(self) -> None:
        self.sessions: dict[str, Session] = {}
        self._lock = asyncio.Lock()
        self.folder = files.default_folder()

    async def init(self, runtime: ModuleRuntime) -> None:
        await super().init(runtime)
        configured = runtime.config.module_settings.playwright_browser.output_dir
        self.folder = files.folder_for(configured)

    def tools(self) -> Sequence[Tool]:
        return [
            Tool(TOOL, DESCRIPTION, PlaywrightBrowserParams, self.run, hints=ToolHints(), judge=self.judge)
        ]

    async def shutdown(self) -> None:
        for browser_id in list(self.sessions):
            await self._close(browser_id)

    # ------------------------------------------------------------------ the tool
    async def run_tool(self, ctx: CallContext, tool: Tool, params: BaseModel) -> JsonObject:
        """One call through the safety wrapper, a step on a session's page under the session's lock; a
        refusal or a failure is the seed's ``success: false`` with the typed error in ``stderr``."""
        assert isinstance(params, PlaywrightBrowserParams)
        try:
            if params.action not in ON_PAGE:
                return await super().run_tool(ctx, tool, params)
            session = self._session(params.browser_id)
            async with session.lock:  # the page judged is the page acted on
                return await super().run_tool(ctx, tool, params)
        except KiteError as exc:  # a ToolError, or the env's own (a tab that stopped answering)
            error = exc.error if isinstance(exc, ToolError) else exc.type
            return PlaywrightBrowserResult(success=False, stderr=f"{error}: {exc.message}").model_dump()

    async def judge(self, ctx: CallContext, a: PlaywrightBrowserParams) -> CallPlan:
        """What the step amounts to for the gate: a navigation to the checked URL; a click or typing on the
        element the selector finds, on the page observed now; the other actions start, list, close or read
        a browser of the module's own (``auto``)."""
        if a.action == "navigate":
            assert self.runtime is not None and a.url is not None
            url = check_url(a.url, self.runtime.config.browser)
            if not url.lower().startswith(("http://", "https://")):
                raise ToolError("invalid_url", f"{url[:100]!r}: only http:// and https:// URLs can be opened")
            return navigation_plan(self.gate, TOOL, url, self._session(a.browser_id).page.url)
        if a.action in ("click", "type"):
            return await self._aim(self._session(a.browser_id), a)
        return CallPlan()

    async def run(self, ctx: CallContext, a: PlaywrightBrowserParams) -> JsonObject:
        return (await self._dispatch(ctx, a)).model_dump()

    async def _dispatch(self, ctx: CallContext, a: PlaywrightBrowserParams) -> PlaywrightBrowserResult:
        if a.action == "list":
            return PlaywrightBrowserResult(
                success=True, stdout=json.dumps(await self._list(), ensure_ascii=False)
            )
        if a.action == "close":
            was = await self._close(a.browser_id)
            what = "closed" if was else "was not running (nothing to close)"
            return PlaywrightBrowserResult(success=True, stdout=f"browser {a.browser_id!r} {what}")
        if a.action == "launch":
            await self._launch(a.browser_id, a.headless)
            session = self.sessions[a.browser_id]
            message = f"browser {a.browser_id!r} launched (headless={a.headless})"
            async with session.lock:
                return await self._saved(session, a, message)
        session = self._session(a.browser_id)  # its lock is held (run_tool)
        page = session.page
        if a.action == "navigate":
            message = await self._navigate(page, self._judged(ctx).plan, a)
        elif a.action in ("click", "type"):
            message = await self._step(session, self._judged(ctx), a)
        else:
            png = await self._guard(page.screenshot(full_page=True, timeout=a.timeout * 1000), "screenshot")
            shot = files.save(self.folder, a.browser_id, "screenshot", "png", png)
            return await self._saved(session, a, f"screenshot of {page.url}", [str(shot)])
        return await self._saved(session, a, message)

    @staticmethod
    def _judged(ctx: CallContext) -> Verdict:
        if ctx.verdict is None:
            raise ToolError("not_judged", f"{TOOL}: a step on a page runs only through the safety wrapper")
        return ctx.verdict

    # ------------------------------------------------------------------ sessions
    def _session(self, browser_id: str) -> Session:
        session = self.sessions.get(browser_id)
        if session is None or not session.browser.is_connected():
            raise ToolError(
                "browser_not_found",
                f"no running browser {browser_id!r}; launch it first (running: {sorted(self.sessions) or 'none'})",
            )
        return session

    async def _launch(self, browser_id: str, headless: bool) -> None:
        assert self.runtime is not None
        async with self._lock:
            await self._close(browser_id)  # launching an existing id replaces it
            pool = self.runtime.pool
            try:
                browser = await pool.launch(headless=headless)
                gate = self.gate  # the same context rules as every face: domains, dialogs judged by the gate
                safety = EnvSafety.from_config(
                    self.runtime.config, gate.confirmer, SecretStore(), gate.policy
                )
                env = await BrowserEnv.on_raw(pool, browser, self.runtime.config, safety)
                page = await env.ctx.open_tab()
            except (PlaywrightError, KiteError) as exc:
                raise ToolError("browser_launch_failed", str(exc).splitlines()[0]) from exc
            self.sessions[browser_id] = Session(browser, env, page, headless)

    async def _close(self, browser_id: str) -> bool:
        session = self.sessions.pop(browser_id, None)
        if session is None:
            return False
        with contextlib.suppress(Exception):
            await asyncio.wait_for(session.env.close(), 15)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(session.browser.close(), 15)
        return True

    async def _list(self) -> list[JsonObject]:
        out: list[JsonObject] = []
        for browser_id, s in list(self.sessions.items()):
            alive = s.browser.is_connected() and not s.page.is_closed()
            title = ""
            if alive:
                with contextlib.suppress(Exception):
                    title = await asyncio.wait_for(s.page.title(), 5)
            out.append(
                {"browser_id": browser_id, "status": "active" if alive else "closed", "title": title,
                 "url": s.page.url, "headless": s.headless}
            )  # fmt: skip
        return out

    # ------------------------------------------------------------------ actions
    @staticmethod
    async def _guard(coro: Awaitable[T], what: str) -> T:
        try:
            return await coro
        except PlaywrightTimeout as exc:
            raise ToolError(f"{what}_timeout", str(exc).splitlines()[0]) from exc
        except PlaywrightError as exc:
            raise ToolError(f"{what}_failed", str(exc).splitlines()[0]) from exc

    async def _settle(self, page: Page, a: PlaywrightBrowserParams) -> None:
        if a.wait_condition == "timeout":
            await page.wait_for_timeout(a.timeout * 1000)
            return
        with contextlib.suppress(PlaywrightError):  # network_idle: returns at the latest after `timeout`
            await page.wait_for_load_state("networkidle", timeout=a.timeout * 1000)

    async def _navigate(self, page: Page, plan: CallPlan, a: PlaywrightBrowserParams) -> str:
        assert isinstance(plan.action, Navigate)
        response = await self._guard(
            page.goto(plan.action.url, wait_until="domcontentloaded", timeout=a.timeout * 1000), "navigation"
        )
        await self._settle(page, a)
        status = f" (HTTP {response.status})" if response is not None else ""
        return f"navigated to {page.url}{status}: {await page.title()!r}"

    async def _element(self, page: Page, a: PlaywrightBrowserParams) -> Locator:
        assert a.selector is not None
        loc = locator(page, a.selector)
        try:
            await loc.wait_for(state="attached", timeout=a.timeout * 1000)
        except PlaywrightTimeout as exc:
            raise ToolError(
                "element_not_found", f"no element matches {a.selector!r} within {a.timeout:g} s"
            ) from exc
        except PlaywrightError as exc:
            raise ToolError(
                "invalid_selector",
                f"{a.selector!r} is not a valid CSS or XPath selector: {exc.message.splitlines()[0]}",
            ) from exc
        return loc

    async def _aim(self, session: Session, a: PlaywrightBrowserParams) -> CallPlan:
        """The click or typing on the element ``a.selector`` finds, on the session's page observed now."""
        assert a.selector is not None
        selector, text = a.selector, a.text or ""
        handle = await self._guard((await self._element(session.page, a)).element_handle(), "element")

        def make(index: int | None) -> Click | Type:
            if a.action == "click":
                return Click(index=index) if index is not None else Click(selector=selector)
            if index is not None:
                return Type(index=index, text=text)
            return Type(selector=selector, text=text)

        session.env.ctx.activate(session.page)
        action, obs = await aimed_at(session.env, handle, make)
        return CallPlan(action=action, observation=obs, about={"tool": TOOL, "args": {"selector": selector}})

    async def _step(self, session: Session, verdict: Verdict, a: PlaywrightBrowserParams) -> str:
        """The judged click or typing through the session's env (the second look at the target included)."""
        page = session.page
        before = page.url
        result = (await act_judged(session.env, verdict)).result
        if not result.ok:
            error = result.error.error if result.error is not None else f"{a.action}_failed"
            if a.action == "type":
                error = TYPE_ERRORS.get(error, error)
            raise ToolError(error, f"{a.action} {a.selector!r}: {result.message or error}")
        if a.action == "type":
            return f"typed {len(a.text or '')} characters into {a.selector!r}"
        await self._settle(page, a)
        moved = f"; now at {page.url}" if page.url != before else ""
        return f"clicked {a.selector!r}{moved}"

    async def _saved(
        self, session: Session, a: PlaywrightBrowserParams, message: str, extra: list[str] | None = None
    ) -> PlaywrightBrowserResult:
        page = session.page
        text = await self._guard(page_content(page, a.action, a.content_mode, a.timeout), "content")
        data, ext = text.encode(), "html" if a.content_mode == "html" else "txt"
        path = files.save(self.folder, a.browser_id, a.action, ext, data)
        return PlaywrightBrowserResult(
            success=True, stdout=f"{message}\npage saved to {path}", output_files=[*(extra or []), str(path)]
        )
