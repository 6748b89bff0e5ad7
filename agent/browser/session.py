"""BrowserSession: one Chromium driven through Playwright, in one of three modes.

* **sandbox** (default): ``launch()`` with a fresh temporary user-data-dir that Playwright deletes at close;
* **profile** (``browser.profile = NAME``): ``launch_persistent_context`` on ``<data dir>/profiles/NAME`` so
  cookies and storage survive restarts; a profile held by another live Chrome fails fast (``profile_locked``);
* **attach** (``browser.attach = http://host:port`` or ``ws://...``): ``connect_over_cdp`` to a Chrome the user
  started with ``--remote-debugging-port``; ``close()`` only disconnects and never kills that browser.

Each session owns its Playwright driver (started by ``agent.browser.driver.start_driver``; faces get their
sessions from a ``BrowserPool``). ``context`` is the default ContextSession; ``new_context()`` makes
more (the batch runner runs tasks in parallel in one browser). A crashed tab or a dead browser raises
``BrowserCrashedError`` on next use, and ``restart()`` brings every open ContextSession back on a new browser.
No Chromium outlives ``close()``; see ``install_signal_cleanup`` for SIGTERM.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from playwright.async_api import Browser, BrowserContext, Playwright, PlaywrightContextManager
from playwright.async_api import Error as PlaywrightError

from kite_browser.agent.base.errors import BrowserCrashedError, BrowserError
from kite_browser.agent.browser.chromium import require_chromium
from kite_browser.agent.browser.context import (
    ContextClosedError,
    ContextEvents,
    ContextSession,
    DialogPolicy,
    NavigationFailedError,
    NoOpenTabError,
    TabNotFoundError,
)
from kite_browser.agent.browser.driver import start_driver
from kite_browser.agent.browser.extractor_call import install_listener_tracking
from kite_browser.agent.browser.launch import (
    AttachFailedError,
    LaunchFailedError,
    chromium_args,
    install_signal_cleanup,
    probe_attach,
    viewport,
)
from kite_browser.agent.browser.profiles import ProfileLockedError, check_profile_unlocked, profile_dir
from kite_browser.agent.config import NO_DISPLAY_HELP, BrowserConfig, default_data_dir, has_display

__all__ = [
    "AttachFailedError",
    "BrowserSession",
    "ContextClosedError",
    "ContextEvents",
    "ContextSession",
    "DialogPolicy",
    "LaunchFailedError",
    "NavigationFailedError",
    "NoOpenTabError",
    "ProfileLockedError",
    "TabNotFoundError",
    "install_signal_cleanup",
]

Mode = Literal["sandbox", "profile", "attach"]


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class BrowserSession:
    """One browser. Use as ``async with BrowserSession(cfg) as s: page = s.context.page``."""

    def __init__(self, config: BrowserConfig, *, downloads_dir: Path | None = None) -> None:
        self.config = config
        self.downloads_dir = downloads_dir
        """Default downloads folder of contexts; None = Playwright's temporary folder, removed at close."""
        self.mode: Mode = "attach" if config.attach else "profile" if config.profile else "sandbox"
        self.profile_path: Path | None = None
        if self.mode == "profile":
            data = Path(config.data_dir).expanduser() if config.data_dir else default_data_dir()
            self.profile_path = profile_dir(data, config.profile or "")
        self._pw: Playwright | None = None
        self._pw_cm: PlaywrightContextManager | None = None
        self._browser: Browser | None = None
        self._default: ContextSession | None = None
        self._extra: list[tuple[ContextSession, dict[str, Any]]] = []
        self._started = False
        self._closed = False
        self._closing = False

    # ----------------------------------------------------------------- lifecycle
    async def __aenter__(self) -> BrowserSession:
        return await self.start()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def start(self) -> BrowserSession:
        """Launch (or attach) and open the default context with one tab."""
        if self._closed:
            raise BrowserError("this browser session was closed; make a new one")
        if self._started:
            return self
        try:
            await self._launch()
        except BaseException:
            await self._teardown()
            raise
        self._started = True
        return self

    async def _launch(self) -> None:
        cfg = self.config
        if self.mode == "attach":
            await probe_attach(cfg.attach or "", cfg.launch_timeout_ms)
        if self.mode != "attach" and not cfg.headless and not has_display():
            raise LaunchFailedError(NO_DISPLAY_HELP)
        exe = None if self.mode == "attach" else require_chromium(cfg.chromium_path)
        if self.mode == "profile" and self.profile_path is not None:
            self.profile_path.mkdir(parents=True, exist_ok=True)
            check_profile_unlocked(self.profile_path)
        self._closing = False
        self._pw_cm, self._pw = await start_driver()
        chromium = self._pw.chromium
        default_ctx: BrowserContext | None = None
        owns_default = True
        try:
            if self.mode == "attach":
                self._browser = await chromium.connect_over_cdp(
                    cfg.attach or "", timeout=cfg.launch_timeout_ms
                )
                if self._browser.contexts:
                    default_ctx, owns_default = self._browser.contexts[0], False
            elif self.mode == "profile":
                default_ctx = await chromium.launch_persistent_context(
                    str(self.profile_path),
                    executable_path=exe,
                    headless=cfg.headless,
                    args=chromium_args(cfg),
                    viewport=viewport(cfg),
                    accept_downloads=True,
                    timeout=cfg.launch_timeout_ms,
                )
                self._browser = default_ctx.browser
            else:
                self._browser = await chromium.launch(
                    executable_path=exe,
                    headless=cfg.headless,
                    args=chromium_args(cfg),
                    timeout=cfg.launch_timeout_ms,
                )
        except PlaywrightError as exc:
            if self.mode == "attach":
                raise AttachFailedError(
                    f"could not attach to {cfg.attach}: {_first_line(exc)}", endpoint=cfg.attach
                ) from exc
            raise LaunchFailedError(
                f"Chromium ({exe or 'Playwright build'}) did not start: {_first_line(exc)}", executable=exe
            ) from exc
        if self._browser is not None:
            self._browser.on("disconnected", self._on_disconnected)
        if default_ctx is None:
            assert self._browser is not None
            default_ctx = await self._browser.new_context(**self._context_kwargs({}))
        await install_listener_tracking(default_ctx)  # before the first page: JS click handlers get listed
        if self._default is None:
            self._default = ContextSession(
                default_ctx,
                downloads_dir=self._downloads_for(None),
                owns_context=owns_default,
                navigation_timeout_ms=cfg.navigation_timeout_ms,
                max_download_mb=cfg.max_download_mb,
                max_download_total_mb=cfg.max_download_total_mb,
            )
        else:
            self._default.owns_context = owns_default
            await self._default._rebind(default_ctx)
        if not self._default.pages:
            await self._default.open_tab()

    def _context_kwargs(self, extra: dict[str, Any]) -> dict[str, Any]:
        return {"viewport": viewport(self.config), "accept_downloads": True, **extra}

    def _downloads_for(self, downloads_dir: Path | None) -> Path | None:
        # None: downloads stay in Playwright's temporary folder, which its driver removes at close (even
        # when Python is killed), so nothing is left behind.
        return downloads_dir if downloads_dir is not None else self.downloads_dir

    def _on_disconnected(self, _browser: Browser) -> None:
        if self._closing:
            return
        for ctx in self._all_contexts():
            ctx._mark_dead("the browser disconnected (it exited or crashed)")

    def _all_contexts(self) -> list[ContextSession]:
        out = [self._default] if self._default is not None else []
        return out + [c for c, _ in self._extra]

    async def _teardown(self) -> None:
        """Close every context and the browser (attach: disconnect), and stop the driver."""
        self._closing = True
        for ctx in self._all_contexts():
            if ctx.owns_context:
                with contextlib.suppress(PlaywrightError):
                    await ctx.context.close()
            ctx._unbind()
        if self._browser is not None:
            with contextlib.suppress(PlaywrightError):
                await self._browser.close()
            self._browser = None
        elif self._default is not None and self.mode == "profile":
            with contextlib.suppress(PlaywrightError):
                await self._default.context.close()
        if self._pw is not None:
            with contextlib.suppress(Exception):
                await self._pw.stop()
            self._pw = None
            self._pw_cm = None

    async def restart(self) -> None:
        """Tear down and launch again; open ContextSessions are re-bound to fresh contexts (tabs are lost)."""
        if self._closed:
            raise BrowserError("this browser session was closed; make a new one")
        self._extra = [(c, kw) for c, kw in self._extra if not c._closed]
        await self._teardown()
        try:
            await self._launch()
        except BaseException:
            await self._teardown()
            raise
        assert self._browser is not None
        for ctx, kwargs in self._extra:
            ctx.owns_context = True
            await ctx._rebind(await self._browser.new_context(**self._context_kwargs(kwargs)))
        self._started = True

    async def close(self) -> None:
        """Close everything Kite opened (idempotent). Attach mode only disconnects from the user's Chrome."""
        if self._closed:
            return
        self._closed = True
        for ctx in self._all_contexts():
            ctx._closed = True
        await self._teardown()

    # ----------------------------------------------------------------- contexts
    async def new_context(
        self, *, downloads_dir: Path | None = None, **context_kwargs: Any
    ) -> ContextSession:
        """A further isolated context (own cookies) in the same browser; closed with the session."""
        self._require_alive()
        assert self._browser is not None
        kwargs = self._context_kwargs(context_kwargs)
        try:
            raw = await self._browser.new_context(**kwargs)
        except PlaywrightError as exc:
            raise BrowserCrashedError(f"cannot open a browser context: {_first_line(exc)}") from exc
        await install_listener_tracking(raw)
        ctx = ContextSession(
            raw,
            downloads_dir=self._downloads_for(downloads_dir),
            navigation_timeout_ms=self.config.navigation_timeout_ms,
            max_download_mb=self.config.max_download_mb,
            max_download_total_mb=self.config.max_download_total_mb,
        )
        self._extra = [(c, kw) for c, kw in self._extra if not c._closed]
        self._extra.append((ctx, context_kwargs))
        await ctx.open_tab()
        return ctx

    def _require_alive(self) -> None:
        if self._closed:
            raise BrowserError("this browser session was closed")
        if not self._started or self._browser is None:
            raise BrowserError("the browser session is not started; call start()")
        if not self._browser.is_connected():
            raise BrowserCrashedError("the browser disconnected (it exited or crashed); call restart()")

    @property
    def context(self) -> ContextSession:
        """The default context: a new one (sandbox), the persistent one (profile), the first existing (attach)."""
        if self._default is None:
            raise BrowserError("the browser session is not started; call start()")
        return self._default

    @property
    def contexts(self) -> list[ContextSession]:
        return [c for c in self._all_contexts() if not c._closed]

    @property
    def browser(self) -> Browser | None:
        return self._browser

    @property
    def driver_pid(self) -> int | None:
        """Pid of this session's Playwright driver (Chromium runs below it), for diagnostics and tests."""
        if self._pw is None or self._pw_cm is None or self._pw_cm._client is None:
            return None
        try:
            return int(self._pw_cm._client._transport._proc.pid)
        except (AttributeError, TypeError, ValueError):
            return None

    @property
    def is_alive(self) -> bool:
        return (
            self._started
            and not self._closed
            and self._browser is not None
            and self._browser.is_connected()
            and self._default is not None
            and self._default.is_alive
        )
