"""BrowserPool: the only code in Kite that starts Playwright and Chromium.

Every face gets its browsers here: the agent's runs, ``kite batch``/``kite eval`` (one shared browser, one
context per task), ``kite serve``'s runs, ``kite mcp`` (one context per client session), and the tool modules
(``browser``: a browser of its own; ``chrome``, ``playwright_browser``, ``javascript``: raw Chromiums they
manage themselves, launched through ``launch()``).

What the pool does, once for all of them:

* **start** the Playwright driver (``driver.start_driver``: the one ``async_playwright()`` call) and Chromium
  (``BrowserSession``: launch sandboxed, a persistent profile, or attach over CDP);
* **the shared browser**: started on first use, and when it died (crashed, closed, stopped answering) started
  again under a lock, however many callers notice it at once (``shared()``);
* **contexts** (``context()``), with downloads in the folder asked for;
* **the context rules** (``ContextRules``): the network (domain) policy, the request hold and the dialog policy of every
  context Kite opens are applied in ONE place, ``BrowserPool.apply``; after a restart they are applied again
  to the fresh contexts. Extend what every context gets there, nowhere else.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from playwright.async_api import Browser, BrowserContext, Playwright, PlaywrightContextManager, Request
from playwright.async_api import Error as PlaywrightError

from kite_browser.agent.base.errors import BrowserError, KiteError
from kite_browser.agent.browser.chromium import require_chromium
from kite_browser.agent.browser.context import ContextSession, DialogJudge
from kite_browser.agent.browser.downloads import SecretScan
from kite_browser.agent.browser.driver import start_driver
from kite_browser.agent.browser.extractor_call import install_listener_tracking
from kite_browser.agent.browser.holds import RequestJudge
from kite_browser.agent.browser.launch import chromium_args, viewport
from kite_browser.agent.browser.session import BrowserSession
from kite_browser.agent.config import BrowserConfig

PROBE_TIMEOUT_S = 5.0
"""How long the shared browser gets to answer a round trip before it counts as dead (``shared(probe=True)``)."""


class NetworkPolicy(Protocol):
    """What the network layer of a context enforces (``safety.domains.DomainPolicy``)."""

    async def install(
        self, context: BrowserContext, hold: Callable[[Request], Awaitable[bool]] | None = None
    ) -> None: ...

    def refuse(self, url: str, resource_type: str) -> str | None:
        """Why a request may not leave (recorded as the policy's other blocks), or None."""
        ...


@dataclass
class ContextRules:
    """What a context Kite opens is held to. ``BrowserPool.apply`` is the one place that applies them."""

    network: NetworkPolicy | None = None
    """Allowed/blocked domains, enforced on every request of the context (None: no limits)."""
    dialog_judge: DialogJudge | None = None
    """Judges each confirm/prompt/beforeunload dialog (the safety gate's ``check_dialog``); None = the
    context's ``dialog_policy`` answers alone."""
    request_judge: RequestJudge | None = None
    """Judges each state-changing request of the context's tabs (the safety gate's ``check_request``,
    ``agent/browser/holds.py``); None: no request is held."""
    name_filter: Callable[[str], str] | None = None
    """Applied to a download's file name before it is saved (secrets taken out)."""
    secret_scan: SecretScan | None = None
    """The secrets taken out of a saved download's content (a binary file holding one is deleted)."""
    max_download_mb: float | None = None
    """The download cap; None leaves the context's own (its browser's ``browser.max_download_mb``)."""
    max_download_total_mb: float | None = None
    """The cap on the context's downloads together; None leaves the context's own
    (``browser.max_download_total_mb``)."""


async def apply_rules(ctx: ContextSession, rules: ContextRules) -> None:
    """Hold ``ctx`` to ``rules`` (``BrowserPool.apply`` does it for the contexts the pool made; an env handed
    a context it did not get from a pool calls this directly). The one place rules reach a context."""
    ctx.dialog_judge = rules.dialog_judge
    ctx.name_filter = rules.name_filter
    ctx.secret_scan = rules.secret_scan
    if rules.max_download_mb is not None:
        ctx.max_download_mb = rules.max_download_mb
    if rules.max_download_total_mb is not None:
        ctx.max_download_total_mb = rules.max_download_total_mb
    if rules.network is not None:
        await rules.network.install(
            ctx.context, ctx.holds.on_route if rules.request_judge is not None else None
        )
    refuse = rules.network.refuse if rules.network is not None else None
    await ctx.holds.install(ctx.context, rules.request_judge, refuse)


@dataclass
class _Tracked:
    ctx: ContextSession
    rules: ContextRules = field(default_factory=ContextRules)


class BrowserPool:
    """Browsers for every face. ``async with BrowserPool(config) as pool: ctx = await pool.context(rules)``.

    ``session``: a browser started by the caller and left open by the pool (tests, benches); else the
    shared browser is launched on first use and closed by ``close()``."""

    def __init__(
        self,
        config: BrowserConfig,
        *,
        downloads_dir: Path | None = None,
        session: BrowserSession | None = None,
    ) -> None:
        self.config = config
        self.downloads_dir = downloads_dir
        self._shared: BrowserSession | None = session
        self._owns_shared = session is None
        self._dedicated: list[BrowserSession] = []
        self._tracked: list[_Tracked] = []
        self._raw: list[Browser] = []
        self._driver: tuple[PlaywrightContextManager, Playwright] | None = None
        self._lock = asyncio.Lock()
        self._closed = False
        self.restarts = 0
        """How many times the shared browser was started again after it died."""

    async def __aenter__(self) -> BrowserPool:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def started(self) -> bool:
        """Whether any browser of the pool was started (a given one counts)."""
        return self._shared is not None or bool(self._dedicated) or bool(self._raw)

    # ------------------------------------------------------------------ the shared browser
    async def shared(self, *, probe: bool = False) -> tuple[BrowserSession, bool]:
        """The shared browser, started now if it is not yet, started again if it died: ``(session,
        restarted)``. ``probe``: also count a browser that does not answer a round trip within
        ``PROBE_TIMEOUT_S`` as dead. One caller restarts it; the others wait for that and share it."""
        async with self._lock:
            if self._closed:
                raise BrowserError("the browser pool is closed")
            if self._shared is None:
                session = BrowserSession(self.config, downloads_dir=self.downloads_dir)
                await session.start()
                self._shared = session
                return session, False
            if await self._alive(self._shared, probe):
                return self._shared, False
            await self._shared.restart()
            self.restarts += 1
            for tracked in self._live():
                await self.apply(tracked.ctx, tracked.rules)  # routes live on the old, gone context
            return self._shared, True

    @staticmethod
    async def _alive(session: BrowserSession, probe: bool) -> bool:
        if not session.is_alive:
            return False
        if not probe:
            return True
        try:  # a round trip to the browser process, not to a page's renderer
            await asyncio.wait_for(session.context.context.cookies(), PROBE_TIMEOUT_S)
        except (PlaywrightError, TimeoutError, KiteError):
            return False
        return session.is_alive

    async def context(
        self,
        rules: ContextRules | None = None,
        *,
        downloads_dir: Path | None = None,
        default: bool = False,
    ) -> ContextSession:
        """A context of the shared browser with ``rules`` applied: a new one (own cookies, closed by its
        user or with the pool), or with ``default`` the browser's default context (shared by its users)."""
        session, _ = await self.shared()
        if default:
            ctx = session.context
            if downloads_dir is not None:
                ctx.downloads_dir = downloads_dir
        else:
            ctx = await session.new_context(downloads_dir=downloads_dir or self.downloads_dir)
        await self.apply(ctx, rules or ContextRules())
        return ctx

    # ------------------------------------------------------------------ the one place rules are applied
    async def apply(self, ctx: ContextSession, rules: ContextRules) -> None:
        """Hold ``ctx`` to ``rules``: the network policy on its requests, the dialog judge on its dialogs,
        the file-name filter on its downloads. Every context of every face passes here (again after a
        restart); extend what contexts get in this method only."""
        self._tracked = [t for t in self._live() if t.ctx is not ctx]
        self._tracked.append(_Tracked(ctx, rules))
        await apply_rules(ctx, rules)

    def _live(self) -> list[_Tracked]:
        return [t for t in self._tracked if not t.ctx._closed]

    # ------------------------------------------------------------------ browsers of their own
    async def session(
        self,
        config: BrowserConfig | None = None,
        *,
        downloads_dir: Path | None = None,
        rules: ContextRules | None = None,
    ) -> BrowserSession:
        """A started browser of its own (sandbox, profile or attach, per ``config``), its default context
        held to ``rules``; closed by the caller or with the pool."""
        session = BrowserSession(config or self.config, downloads_dir=downloads_dir)
        await session.start()
        self._dedicated = [s for s in self._dedicated if s.is_alive] + [session]
        await self.apply(session.context, rules or ContextRules())
        return session

    async def driver(self) -> Playwright:
        """The pool's driver for raw browsers (``launch``), started on first use."""
        async with self._lock:
            if self._closed:
                raise BrowserError("the browser pool is closed")
            if self._driver is None:
                self._driver = await start_driver()
            return self._driver[1]

    async def launch(
        self,
        *,
        headless: bool | None = None,
        args: list[str] | None = None,
        env: dict[str, str] | None = None,
    ) -> Browser:
        """A raw Chromium for a module that manages its own contexts and tabs (closed by the module or with
        the pool): the configured executable and flags (the offline resolver included) plus ``args``; ``env``:
        variables added to its environment (the javascript sandbox marks its processes to watch their memory)."""
        cfg = self.config
        exe = require_chromium(cfg.chromium_path)
        pw = await self.driver()
        browser = await pw.chromium.launch(
            executable_path=exe,
            headless=cfg.headless if headless is None else headless,
            args=[*chromium_args(cfg), *(args or [])],
            timeout=cfg.launch_timeout_ms,
            env={**os.environ, **env} if env else None,
        )
        self._raw = [b for b in self._raw if b.is_connected()] + [browser]
        return browser

    async def raw_context(self, browser: Browser, rules: ContextRules | None = None) -> ContextSession:
        """A new context of a raw browser (``launch``), with tabs, dialogs and downloads tracked like every
        other context and ``rules`` applied."""
        raw: BrowserContext = await browser.new_context(viewport=viewport(self.config), accept_downloads=True)
        await install_listener_tracking(raw)  # before the first page: JS click handlers get listed
        ctx = ContextSession(
            raw,
            downloads_dir=self.downloads_dir,
            navigation_timeout_ms=self.config.navigation_timeout_ms,
            max_download_mb=self.config.max_download_mb,
            max_download_total_mb=self.config.max_download_total_mb,
        )
        await self.apply(ctx, rules or ContextRules())
        return ctx

    # ------------------------------------------------------------------ the end
    async def close(self) -> None:
        """Close every browser the pool started (a given shared session is left to its owner); idempotent."""
        async with self._lock:
            self._closed = True
            sessions = [*self._dedicated]
            if self._owns_shared and self._shared is not None:
                sessions.append(self._shared)
            self._dedicated, self._tracked = [], []
            for session in sessions:
                with contextlib.suppress(Exception):
                    await session.close()
            for browser in self._raw:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(browser.close(), 10)
            self._raw = []
            if self._driver is not None:
                with contextlib.suppress(Exception):
                    await self._driver[1].stop()
                self._driver = None
