"""ContextSession: one browser context with its tabs, JS dialogs, downloads and crash state.

Everything the page does on its own is captured here and reported, never silently swallowed:

* tabs the page opens itself (``target=_blank``, ``window.open``) are tracked and listed by ``tabs()``;
* JS dialogs are answered at once so the page never blocks (alert: accept; confirm, prompt and
  beforeunload: ``dialog_policy``), and recorded as ``DialogInfo(handled=...)``;
* downloads are saved into ``downloads_dir`` under the suggested (de-duplicated) filename; one past
  ``max_download_mb`` is stopped, and a saved file's content is scanned for secrets (``secret_scan``), see
  ``agent/browser/downloads.py``; both are reported as ``download_notices``;
* a crashed tab or a dead browser makes the next use of ``page`` raise ``BrowserCrashedError``.

``drain_events()`` returns what happened since the previous drain.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Literal

from playwright.async_api import BrowserContext, Dialog, Download, Page
from playwright.async_api import Error as PlaywrightError
from pydantic import BaseModel, Field

from kite_browser.agent.base.errors import (
    CRASHED_TAB_ADVICE,
    BrowserCrashedError,
    BrowserError,
    NavigationFailedError,
    TabNotFoundError,
)
from kite_browser.agent.base.jsontypes import JsonObject
from kite_browser.agent.browser.downloads import DownloadGuard, SecretScan
from kite_browser.agent.browser.filenames import safe_filename, unique_path
from kite_browser.agent.browser.holds import RequestHold
from kite_browser.agent.browser.observation import DialogInfo, DownloadNotice, TabInfo

DialogPolicy = Literal["accept", "dismiss"]
DialogJudge = Callable[[DialogInfo, str], Awaitable[tuple[bool, str] | None]]
TITLE_TIMEOUT_S = 2.0


class NoOpenTabError(BrowserError):
    """Every tab of the context is closed; open one with ``open_tab()``."""

    type = "no_open_tab"


class ContextClosedError(BrowserError):
    type = "context_closed"


class ContextEvents(BaseModel):
    """What the page did on its own since the last ``drain_events()``."""

    new_tabs: list[str] = Field(default_factory=list)
    """Urls of tabs the page opened itself (target=_blank, window.open)."""
    dialogs: list[DialogInfo] = Field(default_factory=list)
    """JS dialogs, each already answered (``handled``)."""
    downloads: list[str] = Field(default_factory=list)
    """Paths of downloads saved into downloads_dir."""
    download_notices: list[DownloadNotice] = Field(default_factory=list)
    """Downloads stopped at the cap, or whose content held a secret."""
    crashed: bool = False
    """A tab of this context crashed (or the browser went away)."""

    @property
    def empty(self) -> bool:
        return not (self.new_tabs or self.dialogs or self.downloads or self.download_notices or self.crashed)


class ContextSession:
    """One browser context. ``page`` is the active tab; ``switch_tab`` changes it."""

    def __init__(
        self,
        context: BrowserContext,
        *,
        downloads_dir: Path | None = None,
        owns_context: bool = True,
        navigation_timeout_ms: int | None = None,
        max_download_mb: float | None = None,
        max_download_total_mb: float | None = None,
    ) -> None:
        self.downloads_dir: Path | None = downloads_dir
        """Where downloads are saved (the run folder's downloads/); settable at any time."""
        self.dialog_policy: DialogPolicy = "accept"
        """How confirm, prompt and beforeunload dialogs are answered (alerts are always accepted)."""
        self.prompt_text: str | None = None
        """Text typed into prompt() dialogs when accepting; None = the prompt's default value."""
        self.name_filter: Callable[[str], str] | None = None
        """Applied to a download's suggested file name before it is saved (the run takes secrets out)."""
        self.secret_scan: SecretScan | None = None
        """The run's secrets, taken out of a saved download's content; None: not scanned."""
        self._guard = DownloadGuard(max_download_mb, max_download_total_mb)
        self.dialog_judge: DialogJudge | None = None
        """Asked before answering a confirm, prompt or beforeunload dialog: (accept?, why) overrides
        ``dialog_policy``; None leaves it to the policy (the safety gate sets this for a run)."""
        self.follow_new_tabs: bool = False
        """Make a tab the page opens itself the active one (else it is only reported)."""
        self.last_dialog: DialogInfo | None = None
        self.owns_context = owns_context
        self._dialog_asks = False
        self.holds = RequestHold()
        """The state-changing requests of every tab, held and judged (``agent/browser/holds.py``)."""
        self.navigation_timeout_ms = navigation_timeout_ms
        self._closed = False
        self._dead_reason: str | None = None
        self._saving: set[asyncio.Task[object]] = set()
        self._reserved: set[Path] = set()
        self._reset_state()
        self._bind(context)

    # ----------------------------------------------------------------- wiring
    def _reset_state(self) -> None:
        self._active: Page | None = None
        self._front: Page | None = None
        """The tab Kite last brought to the front of the window (None: not known)."""
        self._recent: list[Page] = []  # most recently active last
        self._crashed: set[Page] = set()
        self._new_pages: list[Page] = []
        self._dialogs: list[DialogInfo] = []
        self._downloads: list[str] = []
        self._notices: list[DownloadNotice] = []
        self._crash_seen = False
        self._pending_dialog: DialogInfo | None = None

    def _bind(self, context: BrowserContext) -> None:
        self.context = context
        self._dead_reason = None
        if self.navigation_timeout_ms:
            context.set_default_navigation_timeout(self.navigation_timeout_ms)
        context.on("page", self._on_page)
        context.on("close", self._on_context_close)
        for page in context.pages:
            self._watch(page)
        if context.pages:
            self._set_active(context.pages[-1] if self._active is None else self._active)

    def _unbind(self) -> None:
        ctx = self.context
        with contextlib.suppress(Exception):
            ctx.remove_listener("page", self._on_page)
            ctx.remove_listener("close", self._on_context_close)
        for page in list(ctx.pages):
            self._unwatch(page)

    @property
    def awaiting_user(self) -> bool:
        """True while a person is asked about something the page is blocked on (a dialog, a held request):
        the hang watchdog (agent/browser/watchdog.py) then counts neither the deadline nor the unresponsive
        page."""
        return self._dialog_asks or self.holds.awaiting_user

    @property
    def max_download_mb(self) -> float | None:
        """A download larger than this is stopped (None: no cap)."""
        return self._guard.max_mb

    @max_download_mb.setter
    def max_download_mb(self, value: float | None) -> None:
        self._guard.max_mb = value

    @property
    def max_download_total_mb(self) -> float | None:
        """The context's downloads together may not pass this (None: no cap)."""
        return self._guard.max_total_mb

    @max_download_total_mb.setter
    def max_download_total_mb(self, value: float | None) -> None:
        self._guard.max_total_mb = value

    def _watch(self, page: Page) -> None:
        self._guard.watch(self.context, page)
        self.holds.watch(self.context, page)
        page.on("dialog", self._on_dialog)
        page.on("download", self._on_download)
        page.on("crash", self._on_crash)
        page.on("close", self._on_page_close)

    def _unwatch(self, page: Page) -> None:
        self.holds.forget(page)
        with contextlib.suppress(Exception):
            page.remove_listener("dialog", self._on_dialog)
            page.remove_listener("download", self._on_download)
            page.remove_listener("crash", self._on_crash)
            page.remove_listener("close", self._on_page_close)

    async def _rebind(self, context: BrowserContext) -> None:
        """Point this session at a fresh context (after the browser restarted)."""
        self._unbind()
        self._reset_state()
        self._bind(context)
        if not context.pages:
            self._set_active(await context.new_page())

    def _mark_dead(self, reason: str) -> None:
        if not self._closed and self._dead_reason is None:
            self._dead_reason = reason
            self._crash_seen = True

    # ----------------------------------------------------------------- events
    def _on_page(self, page: Page) -> None:
        self._watch(page)
        self._new_pages.append(page)
        self._front = None  # usually in front now, not always (a link opened in the background)
        if self.follow_new_tabs or self._active is None or self._active.is_closed():
            self._set_active(page)

    def _on_page_close(self, page: Page) -> None:
        self._unwatch(page)
        self._crashed.discard(page)
        if page in self._recent:
            self._recent.remove(page)
        if self._active is page:
            self._active = next((p for p in reversed(self._recent) if not p.is_closed()), None)
        if self._front is page:
            self._front = None

    def _on_crash(self, page: Page) -> None:
        self._crashed.add(page)
        self._crash_seen = True

    def _on_context_close(self, _context: BrowserContext) -> None:
        self._mark_dead("the browser context closed underneath Kite (the browser exited or crashed)")

    async def _on_dialog(self, dialog: Dialog) -> None:
        kind = dialog.type if dialog.type in ("alert", "confirm", "prompt", "beforeunload") else "alert"
        accept = kind == "alert" or self.dialog_policy == "accept"
        info = DialogInfo(
            type=kind,
            message=dialog.message,
            default_value=dialog.default_value if kind == "prompt" else None,
        )
        # Record first: whoever awaits the action that raised the dialog sees it as soon as it returns.
        self._dialogs.append(info)
        self.last_dialog = info
        self._pending_dialog = info
        if kind != "alert" and self.dialog_judge is not None:
            self._dialog_asks = True  # a person may be asked: the hang watchdog must not count this time
            try:
                verdict = await self.dialog_judge(info, _page_url(dialog))
            except Exception as exc:  # a failing judge must not leave the page blocked: refuse
                verdict = (False, f"the safety check failed ({exc!r})")
            finally:
                self._dialog_asks = False
            if verdict is not None:
                accept, info.reason = verdict
        info.handled = "accepted" if accept else "dismissed"
        try:
            if accept:
                text = self.prompt_text if self.prompt_text is not None else dialog.default_value
                await (dialog.accept(text) if kind == "prompt" else dialog.accept())
            else:
                await dialog.dismiss()
        except PlaywrightError:
            info.handled = "closed"  # the page went away before the answer arrived

    def _on_download(self, download: Download) -> None:
        directory = self.downloads_dir
        target: Path | None = None
        if directory is not None:
            directory.mkdir(parents=True, exist_ok=True)
            name = self._filtered_name(download)
            target = unique_path(directory, safe_filename(name), self._reserved)
            self._reserved.add(target)
        self._guard.started(download)
        task = asyncio.ensure_future(self._save(download, target))
        self._saving.add(task)
        task.add_done_callback(self._saving.discard)

    async def _save(self, download: Download, target: Path | None) -> None:
        name = target.name if target is not None else safe_filename(self._filtered_name(download))
        reserved = target
        try:
            if target is None:  # no folder: report Playwright's temporary copy (gone when the context closes)
                target = await download.path()
            else:
                await download.save_as(target)
        except PlaywrightError:
            target = None  # failed or cancelled download (at the cap, say): nothing was saved
        finally:
            if reserved is not None:
                self._reserved.discard(reserved)
            if (capped := self._guard.finished(download, name)) is not None:
                self._notices.append(capped)
        if target is None:
            return
        if capped is not None:
            # stopped at the cap, but the file arrived whole before the cancel landed (a fast local server on a
            # loaded machine): nothing of it is kept, and the one notice already says so (a CI run had two)
            target.unlink(missing_ok=True)
            return
        try:
            notice = await self._guard.check_saved(target, name, self.secret_scan)
        except OSError:
            return  # gone meanwhile (the context closed)
        if notice is not None:
            self._notices.append(notice)
        if target.exists():
            self._downloads.append(str(target))

    def _filtered_name(self, download: Download) -> str:
        name = download.suggested_filename
        return self.name_filter(name) if self.name_filter is not None else name

    async def wait_for_downloads(self, timeout_s: float = 30.0) -> list[str]:
        """Wait until the downloads in flight are saved; returns every saved path not yet drained."""
        if self._saving:
            await asyncio.wait(list(self._saving), timeout=timeout_s)
        return list(self._downloads)

    # ----------------------------------------------------------------- state
    def _check_usable(self) -> None:
        if self._closed:
            raise ContextClosedError("this browser context was closed")
        if self._dead_reason is not None:
            raise BrowserCrashedError(f"{self._dead_reason}; call restart() on the browser session")

    def activate(self, page: Page) -> None:
        """Make ``page`` (a tab of this context) the active one, the one observed and acted on."""
        self._check_usable()
        self._set_active(page)

    async def to_front(self, page: Page) -> None:
        """Bring ``page`` to the front of its window before input lands on it, unless it is there already
        (then no round trip) or it is the context's only tab.

        Chromium gives a tab that gets input while another tab of the window is in front one animation frame
        per second until it is brought to the front, however visible Playwright's focus emulation makes it
        look (``document.visibilityState``): every settle that counts frames then waits about a second per
        frame it needs. A caller acting on several tabs by id (the chrome tools, a run whose page opened a
        tab it does not follow) hits that on every action."""
        if page is self._front or page.is_closed() or page in self._crashed:
            return
        if len(self.context.pages) > 1:  # a context's only tab is in front of its window
            with contextlib.suppress(PlaywrightError):
                await page.bring_to_front()
        self._front = page

    def _set_active(self, page: Page) -> None:
        self._active = page
        if page in self._recent:
            self._recent.remove(page)
        self._recent.append(page)

    @property
    def page(self) -> Page:
        """The active tab. Raises BrowserCrashedError (crashed tab or dead browser) or NoOpenTabError."""
        self._check_usable()
        page = self._active
        if page is None or page.is_closed():
            open_pages = [p for p in self.context.pages if not p.is_closed()]
            if not open_pages:
                raise NoOpenTabError("every tab of this browser context is closed; open one with a new tab")
            page = next((p for p in reversed(self._recent) if p in open_pages), open_pages[-1])
            self._set_active(page)
        if page in self._crashed:
            index = self._index_of(page)
            raise BrowserCrashedError(
                f"the active tab [{index}] crashed ({page.url}); {CRASHED_TAB_ADVICE}",
                tab=index,
                url=page.url,
            )
        return page

    @property
    def pages(self) -> list[Page]:
        return [p for p in self.context.pages if not p.is_closed()]

    def _index_of(self, page: Page) -> int:
        pages = self.pages
        return pages.index(page) if page in pages else -1

    @property
    def pending_dialog(self) -> DialogInfo | None:
        """The latest dialog not yet reported by drain_events() (already answered, see ``handled``)."""
        return self._pending_dialog

    @property
    def is_alive(self) -> bool:
        return not self._closed and self._dead_reason is None

    def drain_events(self) -> ContextEvents:
        """Everything the pages did on their own since the previous call."""
        events = ContextEvents(
            new_tabs=[p.url for p in self._new_pages],
            dialogs=list(self._dialogs),
            downloads=list(self._downloads),
            download_notices=list(self._notices),
            crashed=self._crash_seen,
        )
        self._new_pages.clear()
        self._dialogs.clear()
        self._downloads.clear()
        self._notices.clear()
        self._crash_seen = False
        self._pending_dialog = None
        return events

    # ----------------------------------------------------------------- tabs
    async def tabs(self, known: dict[Page, str] | None = None) -> list[TabInfo]:
        """The open tabs; ``known``: titles already read (a snapshot's), not asked for again."""
        self._check_usable()
        out = []
        active = self._active
        for index, page in enumerate(self.pages):
            title = (known or {}).get(page, "")
            if not title and page not in self._crashed:
                with contextlib.suppress(PlaywrightError, asyncio.TimeoutError):
                    title = await asyncio.wait_for(page.title(), TITLE_TIMEOUT_S)
            out.append(TabInfo(index=index, url=page.url, title=title, active=page is active))
        return out

    async def open_tab(self, url: str | None = None) -> Page:
        """Open a new tab (optionally navigating it) and make it the active one."""
        self._check_usable()
        page = await self.context.new_page()
        if page in self._new_pages:
            self._new_pages.remove(page)  # opened by Kite, not by the page
        self._set_active(page)
        if url:
            try:
                await page.goto(url, wait_until="domcontentloaded")
            except PlaywrightError as exc:
                raise NavigationFailedError(
                    f"could not open {url}: {str(exc).splitlines()[0]}", url=url
                ) from exc
        return page

    def _tab_list(self) -> list[JsonObject]:
        return [{"index": i, "url": p.url} for i, p in enumerate(self.pages)]

    def _find(self, index: int | None, url: str | None) -> Page:
        pages = self.pages
        if index is not None:
            if 0 <= index < len(pages):
                return pages[index]
            raise TabNotFoundError(
                f"there is no tab [{index}] ({len(pages)} open)", index=index, tabs=self._tab_list()
            )
        if url:
            for match in (lambda p: p.url == url, lambda p: url in p.url):
                found = next((p for p in pages if match(p)), None)
                if found is not None:
                    return found
            raise TabNotFoundError(f"no open tab has the url {url}", url=url, tabs=self._tab_list())
        raise TabNotFoundError("switch_tab needs an index or a url", tabs=self._tab_list())

    async def switch_tab(self, index: int | None = None, url: str | None = None) -> Page:
        """Make the tab at ``index`` (or the first whose url equals / contains ``url``) the active one."""
        self._check_usable()
        page = self._find(index, url)
        self._set_active(page)
        if page not in self._crashed:
            self._front = None
            await self.to_front(page)
        return page

    async def close_tab(self, index: int) -> None:
        self._check_usable()
        page = self._find(index, None)
        await page.close()
        self._on_page_close(page)

    # ----------------------------------------------------------------- close
    async def close(self) -> None:
        """Close the context (idempotent). A context Kite did not create (attach mode) is only left."""
        if self._closed:
            return
        self._closed = True
        for task in list(self._saving):
            task.cancel()
        self._guard.close()
        self.holds.close()
        self._unbind()
        if self.owns_context:
            with contextlib.suppress(PlaywrightError):
                await self.context.close()


def _page_url(dialog: Dialog) -> str:
    try:
        return dialog.page.url if dialog.page is not None else ""
    except PlaywrightError:
        return ""
