"""Browser and tab instances of the chrome module: unique ids, lifecycle, clean shutdown.

Each browser is its own Chromium process, launched by the runtime's ``BrowserPool`` at a ``chrome_launch``
(never before), with one context and one ``BrowserEnv`` over it: clicks and typing act through the env's gate
and its second look at the target, as the agent's do. Tabs are the context's pages, including tabs the page
opens itself. JS dialogs are answered at once by the context and judged by the env's gate, as for every face
(alerts accepted; a sensitive confirm/prompt asks the caller's confirmer, the others are accepted).
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime

from playwright.async_api import Browser, BrowserContext, Page
from playwright.async_api import Error as PlaywrightError

from kite_browser.agent.base.errors import KiteError
from kite_browser.agent.base.toolset import JsonObject
from kite_browser.agent.browser.context import ContextSession
from kite_browser.agent.browser.env import BrowserEnv, EnvSafety
from kite_browser.agent.browser.pool import BrowserPool
from kite_browser.agent.config import KiteConfig
from kite_browser.agent.modules.base import ToolError
from kite_browser.safety.confirm import Gate
from kite_browser.safety.secrets import SecretStore

ACTION_TIMEOUT_MS = 5000


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


@dataclass
class TabInstance:
    id: str
    browser_id: str
    page: Page
    created_at: str = field(default_factory=_now)
    status: str = "active"

    async def info(self) -> JsonObject:
        title = ""
        if not self.page.is_closed():
            with contextlib.suppress(PlaywrightError, TimeoutError):
                title = await asyncio.wait_for(self.page.title(), 2)
        return {
            "tabId": self.id,
            "browserId": self.browser_id,
            "url": self.page.url,
            "title": title,
            "createdAt": self.created_at,
            "status": "closed" if self.page.is_closed() else self.status,
        }


@dataclass
class BrowserInstance:
    id: str
    browser: Browser
    env: BrowserEnv
    headless: bool
    created_at: str = field(default_factory=_now)
    status: str = "running"
    tabs: dict[str, TabInstance] = field(default_factory=dict)

    @property
    def session(self) -> ContextSession:
        return self.env.ctx

    @property
    def context(self) -> BrowserContext:
        return self.env.ctx.context

    def info(self) -> JsonObject:
        return {
            "browserId": self.id,
            "createdAt": self.created_at,
            "status": self.status,
            "headless": self.headless,
            "tabCount": len(self.tabs),
        }


class BrowserManager:
    def __init__(self, config: KiteConfig, gate: Gate, pool: BrowserPool) -> None:
        self.config = config
        self.gate = gate
        self.pool = pool
        self.safety = EnvSafety.from_config(config, gate.confirmer, SecretStore(), gate.policy)
        """One policy and gate for the module's browsers (module calls resolve no secrets)."""
        self.browsers: dict[str, BrowserInstance] = {}
        self.tabs: dict[str, TabInstance] = {}
        self._closed_browsers: set[str] = set()
        self._closed_tabs: set[str] = set()

    # ------------------------------------------------------------------ browsers
    async def launch(self, headless: bool, args: list[str]) -> tuple[BrowserInstance, TabInstance]:
        limit = self.config.module_settings.chrome.max_browsers
        if len(self.browsers) >= limit:
            raise ToolError(
                "too_many_browsers",
                f"{len(self.browsers)} browsers are open (module_settings.chrome.max_browsers = {limit}); "
                "close one with chrome_close",
                limit=limit,
            )
        try:
            browser = await self.pool.launch(headless=headless, args=args)
        except (PlaywrightError, KiteError, OSError) as exc:
            msg = exc.message if isinstance(exc, KiteError) else first_line(exc)
            raise ToolError("browser_launch_failed", f"Chromium did not start: {msg}", reason=msg) from exc
        try:
            env = await BrowserEnv.on_raw(self.pool, browser, self.config, self.safety)
        except PlaywrightError as exc:
            with contextlib.suppress(PlaywrightError):
                await browser.close()
            raise ToolError("browser_launch_failed", f"no browser context: {first_line(exc)}") from exc
        context = env.ctx.context
        inst = BrowserInstance(_new_id("browser"), browser, env, headless)
        self.browsers[inst.id] = inst
        browser.on("disconnected", lambda _b: self._forget_browser(inst.id))

        def adopt(page: Page) -> None:  # pages the site opens (popups, target=_blank)
            self._adopt(inst, page)

        context.on("page", adopt)
        try:
            tab = self._adopt(inst, await context.new_page())
        except PlaywrightError as exc:
            await self.close(inst.id)
            raise ToolError("browser_launch_failed", f"no first tab: {first_line(exc)}") from exc
        return inst, tab

    def _adopt(self, inst: BrowserInstance, page: Page) -> TabInstance:
        for tab in inst.tabs.values():
            if tab.page is page:
                return tab
        tab = TabInstance(_new_id("tab"), inst.id, page)
        page.set_default_timeout(ACTION_TIMEOUT_MS)
        page.on("close", lambda _p: self._forget_tab(tab.id))
        inst.tabs[tab.id] = tab
        self.tabs[tab.id] = tab
        return tab

    def _forget_tab(self, tab_id: str) -> None:
        tab = self.tabs.pop(tab_id, None)
        if tab is not None:
            tab.status = "closed"
            self._closed_tabs.add(tab_id)
            inst = self.browsers.get(tab.browser_id)
            if inst is not None:
                inst.tabs.pop(tab_id, None)

    def _forget_browser(self, browser_id: str) -> None:
        inst = self.browsers.pop(browser_id, None)
        if inst is None:
            return
        inst.status = "closed"
        self._closed_browsers.add(browser_id)
        for tab_id in list(inst.tabs):
            self._forget_tab(tab_id)

    def browser(self, browser_id: str) -> BrowserInstance:
        inst = self.browsers.get(browser_id)
        if inst is None:
            why = "was closed" if browser_id in self._closed_browsers else "does not exist"
            raise ToolError(
                "browser_not_found",
                f"browser {browser_id!r} {why}; open ones: {sorted(self.browsers) or 'none'}",
                browserId=browser_id,
            )
        return inst

    async def close(self, browser_id: str) -> None:
        inst = self.browser(browser_id)
        self._forget_browser(browser_id)
        await inst.env.close()
        with contextlib.suppress(PlaywrightError):
            await inst.browser.close()

    def env_of(self, tab: TabInstance) -> BrowserEnv:
        """The env of ``tab``'s browser with ``tab`` made its active page (the one observed and acted on)."""
        env = self.browser(tab.browser_id).env
        env.ctx.activate(tab.page)
        return env

    # ------------------------------------------------------------------ tabs
    def tab(self, tab_id: str) -> TabInstance:
        tab = self.tabs.get(tab_id)
        if tab is None or tab.page.is_closed():
            why = "was closed" if tab_id in self._closed_tabs or tab is not None else "does not exist"
            raise ToolError("tab_not_found", f"tab {tab_id!r} {why}", tabId=tab_id)
        return tab

    async def new_tab(self, browser_id: str) -> TabInstance:
        inst = self.browser(browser_id)
        try:
            page = await inst.context.new_page()
        except PlaywrightError as exc:
            raise ToolError(
                "browser_not_found",
                f"browser {browser_id!r} cannot open a tab: {first_line(exc)}",
                browserId=browser_id,
            ) from exc
        return self._adopt(inst, page)

    async def close_tab(self, tab_id: str) -> None:
        tab = self.tab(tab_id)
        self._forget_tab(tab_id)
        with contextlib.suppress(PlaywrightError):
            await tab.page.close(run_before_unload=False)

    # ------------------------------------------------------------------ shutdown
    async def shutdown(self) -> None:
        for browser_id in list(self.browsers):
            with contextlib.suppress(ToolError):
                await self.close(browser_id)
