"""The ``playwright_browser`` module (seed 004): one tool over named Playwright browser sessions.

``playwright_browser {action: launch|navigate|click|type|screenshot|close|list, browser_id, url, selector,
text, wait_condition, timeout, content_mode, headless}`` answers exactly ``{success, stdout, stderr,
output_files}``; a failure is ``success: false`` with ``stderr`` starting with its snake_case type
(``browser_not_found: ...``, ``element_not_found: ...``). After every action but list and close the page is
saved (``abstract``: interactive controls with selectors + the page text; ``html``: the HTML) and its path
returned. Navigations are judged by the safety gate like Kite's ``navigate``; clicks and typing like
``click``/``type`` on the selector.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from playwright.async_api import Browser, Locator, Page
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from kite_browser.agent.browser.actions import Click, Navigate, Type
from kite_browser.agent.browser.env import EnvSafety
from kite_browser.agent.errors import KiteError
from kite_browser.agent.modules.base import CallContext, ModuleRuntime, Tool, ToolError, ToolModule
from kite_browser.agent.modules.chrome.pages import check_url
from kite_browser.agent.modules.gate import check_action, check_domain
from kite_browser.agent.modules.playwright_browser import files
from kite_browser.agent.modules.playwright_browser.abstract import page_abstract
from kite_browser.agent.modules.playwright_browser.params import (
    PlaywrightBrowserParams,
    PlaywrightBrowserResult,
)
from kite_browser.agent.toolset import JsonObject, ToolHints
from kite_browser.safety.secrets import SecretStore

DESCRIPTION = (
    "Drive named Playwright browser sessions: launch, navigate (http/https), click or type (CSS or XPath "
    "selector), screenshot, close, list. Every answer is {success, stdout, stderr, output_files}; after an "
    "action the page is saved to a file (abstract: its controls with selectors and its text; or html)."
)


@dataclass
class Session:
    browser: Browser
    page: Page
    headless: bool
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


def locator(page: Page, selector: str) -> Locator:
    s = selector.strip()
    if s.startswith(("/", "(/", "(")) and not s.startswith("xpath="):
        s = "xpath=" + s
    return page.locator(s).first


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
        return [Tool("playwright_browser", DESCRIPTION, PlaywrightBrowserParams, self.run, hints=ToolHints())]

    async def shutdown(self) -> None:
        for browser_id in list(self.sessions):
            await self._close(browser_id)

    # ------------------------------------------------------------------ the tool
    async def run(self, ctx: CallContext, a: PlaywrightBrowserParams) -> JsonObject:
        try:
            result = await self._dispatch(ctx, a)
        except ToolError as exc:
            result = PlaywrightBrowserResult(success=False, stderr=f"{exc.error}: {exc.message}")
        return result.model_dump()

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
        session = self._session(a.browser_id)
        async with session.lock:
            page = session.page
            if a.action == "navigate":
                message = await self._navigate(ctx, page, a)
            elif a.action == "click":
                message = await self._click(ctx, page, a)
            elif a.action == "type":
                message = await self._type(ctx, page, a)
            else:
                png = await self._guard(
                    page.screenshot(full_page=True, timeout=a.timeout * 1000), "screenshot"
                )
                shot = files.save(self.folder, a.browser_id, "screenshot", "png", png)
                return await self._saved(session, a, f"screenshot of {page.url}", [str(shot)])
            return await self._saved(session, a, message)

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
                ctx = await pool.raw_context(browser, safety.rules())
                page = await ctx.open_tab()
            except (PlaywrightError, KiteError) as exc:
                raise ToolError("browser_launch_failed", str(exc).splitlines()[0]) from exc
            self.sessions[browser_id] = Session(browser, page, headless)

    async def _close(self, browser_id: str) -> bool:
        session = self.sessions.pop(browser_id, None)
        if session is None:
            return False
        with contextlib.suppress(Exception):
            await asyncio.wait_for(session.browser.close(), 15)
        return True

    async def _list(self) -> list[dict[str, Any]]:
        out = []
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
    async def _guard(coro: Any, what: str) -> Any:
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

    async def _navigate(self, ctx: CallContext, page: Page, a: PlaywrightBrowserParams) -> str:
        assert self.runtime is not None and a.url is not None
        url = check_url(a.url, self.runtime.config.browser)
        if not url.lower().startswith(("http://", "https://")):
            raise ToolError("invalid_url", f"{url[:100]!r}: only http:// and https:// URLs can be opened")
        check_domain(self.gate, url, "playwright_browser")
        await check_action(self.gate, ctx, "playwright_browser", Navigate(url=url), None, {"url": url})
        response = await self._guard(
            page.goto(url, wait_until="domcontentloaded", timeout=a.timeout * 1000), "navigation"
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

    async def _click(self, ctx: CallContext, page: Page, a: PlaywrightBrowserParams) -> str:
        assert a.selector is not None
        loc = await self._element(page, a)
        await check_action(
            self.gate, ctx, "playwright_browser", Click(selector=a.selector), None, {"selector": a.selector}
        )
        before = page.url
        await self._guard(loc.click(timeout=a.timeout * 1000), "click")
        await self._settle(page, a)
        moved = f"; now at {page.url}" if page.url != before else ""
        return f"clicked {a.selector!r}{moved}"

    async def _type(self, ctx: CallContext, page: Page, a: PlaywrightBrowserParams) -> str:
        assert a.selector is not None and a.text is not None
        loc = await self._element(page, a)
        action = Type(selector=a.selector, text=a.text)
        await check_action(self.gate, ctx, "playwright_browser", action, None, {"selector": a.selector})
        try:
            await loc.fill(a.text, timeout=a.timeout * 1000)
        except PlaywrightError as exc:
            raise ToolError(
                "not_editable", f"cannot type into {a.selector!r}: {exc.message.splitlines()[0]}"
            ) from exc
        return f"typed {len(a.text)} characters into {a.selector!r}"

    async def _saved(
        self, session: Session, a: PlaywrightBrowserParams, message: str, extra: list[str] | None = None
    ) -> PlaywrightBrowserResult:
        page = session.page
        if a.content_mode == "html":
            data, ext = (await self._guard(page.content(), "content")).encode(), "html"
        else:
            data, ext = (await self._guard(page_abstract(page, a.action), "content")).encode(), "txt"
        path = files.save(self.folder, a.browser_id, a.action, ext, data)
        return PlaywrightBrowserResult(
            success=True, stdout=f"{message}\npage saved to {path}", output_files=[*(extra or []), str(path)]
        )
