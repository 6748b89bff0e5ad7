"""The dedicated headless Chromium of ``run_javascript``: one browser (its own, shared with nothing), a fresh
page per call, closed afterwards.

Every page lives in a browser context of its own, so it has a renderer process of its own: a page stuck in
``while(true){}`` blocks no other call. Opening one (a renderer process) is the expensive part of a call, so it
is done ahead of time: the sandbox keeps fresh pages ready (``Pool``), as many as the recent peak of concurrent
calls (at least one, at most ``warm_pages_max``), and a call takes one; a call that finds none waits for the
next page opened. A page serves one call only.

Memory: V8's heap limit (``--max-old-space-size``, ``memory_mb``) crashes a page whose JavaScript heap grows
past it; ArrayBuffers live outside that heap, so while calls run ``MemoryWatch`` polls the anonymous memory
(RssAnon) of this browser's renderer processes and kills one over the cap. Either way the call's page crashes
and the call answers ``memory_limit``. The poll (every ``MEMORY_POLL_S``) lets a fast allocation overshoot
the cap by what it allocates in that time.

A page stuck in a loop does not answer the DevTools protocol, so a timed-out call is not waited on: its page
is closed (the browser ends that renderer process); if even that does not finish within ``KILL_GRACE_S`` the
whole browser is closed and the next call starts a new one.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import uuid
from collections import deque
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, BrowserContext, Page
from playwright.async_api import Error as PlaywrightError

from kite_browser.agent.base.jsontypes import JsonValue
from kite_browser.agent.base.toolset import JsonObject
from kite_browser.agent.browser.exec.cdp import cdp_session
from kite_browser.agent.browser.pool import BrowserPool
from kite_browser.agent.browser.procs import PROC, descendants, with_env
from kite_browser.agent.config import KiteConfig

RUN_JS = (Path(__file__).with_name("run.js")).read_text(encoding="utf-8")
KILL_GRACE_S = 5.0
"""How long a stuck page may take to close before the browser is restarted. Closing one is quick on a quiet
machine but can take over a second under load, and a restart begun too early holds the next call past its
own limit. The caller never waits for this: a timed-out call is answered at once."""
HOUSEKEEPING_DELAY_S = 0.005
"""The pool's housekeeping starts this long after the last running call ended (its caller has the result)."""
MEMORY_POLL_S = 0.1
"""How often MemoryWatch reads the renderers' memory while a call runs."""
MARK = "KITE_JS_SANDBOX"
"""Environment marker of the sandbox browser's processes (finds its browser process for MemoryWatch)."""
RECENT_CALLS = 64
"""The warm pool follows the peak number of concurrent calls among this many recent calls."""
log = logging.getLogger("kite.modules.javascript")
Protect = Callable[[BrowserContext], Awaitable[None]]
"""Applies the network policy (allowed/blocked domains, WebRTC) to a new context: the domain policy's ``install`` (the gate's ``domains``)."""


class BrowserUnavailable(Exception):
    """No Chromium could be started."""


class ExecutionTimeout(Exception):
    pass


class SandboxCrashed(Exception):
    """The call's page crashed or was closed under it (e.g. out of memory)."""


def _rss_anon_kb(pid: int) -> int:
    try:
        for line in (PROC / str(pid) / "status").read_text().splitlines():
            if line.startswith("RssAnon:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


class MemoryWatch:
    """Kills a renderer of one browser (found by its environment marker) whose anonymous memory passes the cap,
    polled only while calls run."""

    def __init__(self, cap_mb: int, marker: str) -> None:
        self.cap_kb = cap_mb * 1024
        self.marker = marker
        self.root: int | None = None
        self.running = 0
        self.killed = 0
        self._task: asyncio.Future[None] | None = None

    def begin(self) -> None:
        self.running += 1
        if self._task is None or self._task.done():
            self._task = asyncio.ensure_future(self._watch())

    def end(self) -> None:
        self.running = max(0, self.running - 1)

    async def _watch(self) -> None:
        while self.running > 0:
            await asyncio.to_thread(self.sweep)  # /proc reads stay off the event loop
            await asyncio.sleep(MEMORY_POLL_S)  # a watchdog's period, not a wait for a condition

    def sweep(self) -> None:
        if self.root is None:
            browsers = [
                p for p in with_env(MARK, self.marker) if p.is_chromium and "--type=" not in p.cmdline
            ]
            if not browsers:
                return
            self.root = browsers[0].pid
        for proc in descendants(self.root):
            if "--type=renderer" in proc.cmdline and _rss_anon_kb(proc.pid) > self.cap_kb:
                with contextlib.suppress(OSError):
                    os.kill(proc.pid, signal.SIGKILL)
                self.killed += 1
                log.warning(
                    "run_javascript: a sandbox page passed %d MB and was stopped", self.cap_kb // 1024
                )


class PoolClosed(Exception):
    """The pool's browser was closed (restarted) while a call waited for a page: the call tries the next one."""


async def close_page(page: Page) -> None:
    with contextlib.suppress(Exception):
        await asyncio.wait_for(page.context.close(), 10)


RUNNER = "__kiteRunJs"
"""The name run.js is installed under in each sandbox page when it is opened (``prepare_page``), so that a call
sends only its own code: the page does not parse and compile the 2 KB runner while the call waits."""
_INSTALL = (
    f"Object.defineProperty(globalThis, {json.dumps(RUNNER)}, "
    f"{{value: ({RUN_JS}), enumerable: false, writable: false, configurable: false}}); 0"
)


async def prepare_page(page: Page) -> None:
    """Make a fresh page ready for one call: its JavaScript world created, its DevTools session open and run.js
    installed in it (without a DevTools session, ``evaluate_run_js`` sends run.js with the call instead)."""
    await page.evaluate("0")
    cdp = await cdp_session(page)
    if cdp is not None:
        await cdp.send("Runtime.evaluate", {"expression": _INSTALL, "returnByValue": True})


async def evaluate_run_js(page: Page, args: list[JsonValue]) -> Any:  # run.js's answer object
    """run.js with ``[code, input, max_bytes]`` in a page made ready by ``prepare_page``: one DevTools call on
    the page's own session (lighter than Playwright's evaluate, which goes through its serialisation layer)."""
    cdp = await cdp_session(page)
    if cdp is None:
        return await page.evaluate(RUN_JS, args)
    res = await cdp.send(
        "Runtime.evaluate",
        {"expression": f"{RUNNER}({json.dumps(args)})", "awaitPromise": True, "returnByValue": True},
    )
    details = res.get("exceptionDetails")
    if details:
        exc = details.get("exception") or {}
        raise PlaywrightError(str(exc.get("description") or details.get("text") or "the sandbox page failed"))
    return res.get("result", {}).get("value")


class Pool:
    """Fresh pages of one browser, opened ahead of the calls that take them."""

    def __init__(
        self,
        browser: Browser,
        max_warm: int,
        background: Callable[[Awaitable[None]], None],
        protect: Protect | None = None,
    ) -> None:
        self.browser = browser
        self.protect = protect
        self.max_warm = max_warm
        self._background = background
        self._ready: list[Page] = []
        self._waiters: deque[asyncio.Future[Page]] = deque()
        self._opening: set[asyncio.Future[None]] = set()
        self._recent: deque[int] = deque([1], maxlen=RECENT_CALLS)
        self._in_use = 0
        self._used: list[Page] = []
        self._closed = False
        self._housekeeping = False

    @property
    def target(self) -> int:
        """How many pages to keep ready: the recent peak of concurrent calls."""
        return max(1, min(self.max_warm, max(self._recent)))

    def take_ready(self) -> Page | None:
        """A page opened ahead of time, taken at once; None when none is ready (then ``take()`` waits)."""
        while self._ready and not self._closed:
            page = self._ready.pop()
            if not page.is_closed():
                self._in_use += 1
                self._recent.append(self._in_use)
                self._refill()
                return page
        return None

    async def take(self) -> Page:
        """A fresh page for one call; ``release()`` or ``abandon()`` it when the call ends."""
        if self._closed:
            raise PoolClosed()
        page = self.take_ready()
        if page is not None:
            return page
        self._in_use += 1
        self._recent.append(self._in_use)
        try:
            waiter: asyncio.Future[Page] = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            self._refill()
            try:
                return await waiter
            except BaseException:
                if waiter.done() and not waiter.cancelled() and waiter.exception() is None:
                    self._ready.append(waiter.result())  # handed over just as the call gave up: keep it
                raise
            finally:
                with contextlib.suppress(ValueError):
                    self._waiters.remove(waiter)
        except BaseException:
            self._in_use -= 1
            raise
        finally:
            self._refill()

    def release(self, page: Page) -> None:
        """The call is over: its page (and context) is closed once no call runs (see ``_refill``)."""
        self._in_use -= 1
        self._used.append(page)
        self._refill()

    def abandon(self) -> None:
        """The call timed out: its page is being killed elsewhere (``Sandbox._dispose``)."""
        self._in_use -= 1
        self._refill()

    def _refill(self) -> None:
        """Open pages for the waiting calls at once. The housekeeping (closing used pages, topping the ready
        ones up to the target) waits until no call is running, so that it never competes with one for the
        CPU (a burst of 8 calls on a 2-core machine would otherwise share it with 8 renderers starting), and
        starts ``HOUSEKEEPING_DELAY_S`` later, once the calls that just ended have handed back their results."""
        if self._closed:
            return
        if self._waiters:
            self._open_more(len(self._waiters))
        if self._in_use == 0:
            if not self._housekeeping:
                self._housekeeping = True
                self._background(self._housekeep_soon())
        elif len(self._used) >= self.max_warm:  # under endless concurrent calls: close them anyway
            self._close_used()

    async def _housekeep_soon(self) -> None:
        try:
            await asyncio.sleep(HOUSEKEEPING_DELAY_S)
        finally:
            self._housekeeping = False
        if self._closed or self._in_use:
            return  # a call started meanwhile: the release that ends it schedules this again
        self._close_used()
        self._open_more(self.target - len(self._ready))
        while len(self._ready) > self.target:
            self._background(close_page(self._ready.pop(0)))

    def _close_used(self) -> None:
        used, self._used = self._used, []
        for page in used:
            self._background(close_page(page))

    def _open_more(self, want: int) -> None:
        """Have ``want`` pages being opened (counting those already on their way)."""
        for _ in range(want - len(self._opening)):
            task = asyncio.ensure_future(self._open_one())
            self._opening.add(task)
            task.add_done_callback(self._opening.discard)

    async def _open_one(self) -> None:
        try:
            page = await self._open()
        except Exception as exc:
            self._fail_waiters(SandboxCrashed(f"no sandbox page could be opened: {exc}"))
            return
        if self._closed:
            await close_page(page)
            return
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(page)
                break
        else:
            self._ready.append(page)
        self._opening.discard(asyncio.current_task())
        self._refill()

    async def _open(self) -> Page:
        context = await self.browser.new_context()
        try:
            if self.protect is not None:  # fetch/WebSocket/WebRTC of the code obey the domain policy
                await self.protect(context)
            page = await context.new_page()
            await prepare_page(page)
            return page
        except BaseException:
            with contextlib.suppress(Exception):
                await context.close()
            raise

    def _fail_waiters(self, exc: BaseException) -> None:
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_exception(exc)

    @property
    def opening(self) -> bool:
        return bool(self._opening)

    async def settled(self) -> None:
        """Wait until the pages being opened are ready (benchmarks measure a settled pool)."""
        while self._opening:
            await asyncio.gather(*list(self._opening), return_exceptions=True)

    async def close(self) -> None:
        self._closed = True
        for task in list(self._opening):
            task.cancel()
        self._fail_waiters(PoolClosed())
        pages = [*self._ready, *self._used]
        self._ready, self._used = [], []
        await asyncio.gather(*(close_page(p) for p in pages))


class Sandbox:
    def __init__(self, config: KiteConfig, browsers: BrowserPool, protect: Protect | None = None) -> None:
        """``browsers``: where the sandbox's dedicated Chromium comes from; ``protect``: the network policy
        applied to each of its contexts (the gate's)."""
        self.config = config
        self.browsers = browsers
        self.protect = protect
        self._browser: Browser | None = None
        self._pool: Pool | None = None
        self._lock = asyncio.Lock()
        self._cleanups: set[asyncio.Future[None]] = set()
        self.launches = 0
        """How many browsers this sandbox has started (1 while it is reused)."""
        self.memory_mb = config.module_settings.javascript.memory_mb
        self.watch: MemoryWatch | None = None

    @property
    def alive(self) -> bool:
        return self._browser is not None and self._browser.is_connected()

    async def _ensure(self) -> Pool:
        pool = self._pool
        if pool is not None and self.alive:
            return pool
        async with self._lock:
            if self._pool is not None and self.alive:
                return self._pool
            await self._close_browser()
            try:
                marker = uuid.uuid4().hex
                self._browser = await self.browsers.launch(
                    headless=True,
                    args=[
                        "--disable-gpu",
                        "--no-first-run",
                        "--disable-extensions",
                        f"--js-flags=--max-old-space-size={self.memory_mb}",
                    ],
                    env={MARK: marker},
                )
                self.watch = MemoryWatch(self.memory_mb, marker)
            except Exception as exc:
                await self._close_browser()
                raise BrowserUnavailable(f"{type(exc).__name__}: {str(exc).splitlines()[0]}") from exc
            self.launches += 1
            max_warm = self.config.module_settings.javascript.warm_pages_max
            self._pool = Pool(self._browser, max_warm, self._background, self.protect)
            return self._pool

    async def start(self) -> None:
        """Start the sandbox's browser if it is not running (raises ``BrowserUnavailable``)."""
        await self._ensure()

    async def run(self, code: str, data: JsonValue, timeout_s: float, max_bytes: int) -> JsonObject:
        """The raw outcome of run.js (kind ok|error|unserialisable|too_large); raises ExecutionTimeout."""
        loop = asyncio.get_running_loop()
        await (
            self._ensure()
        )  # starting the sandbox's browser is not the code's time (launch has its own limit)
        deadline = loop.time() + timeout_s  # the limit covers waiting for a page too
        while True:
            pool = await self._ensure()
            page = pool.take_ready()  # the usual case: a page opened ahead of the call is waiting
            if page is not None:
                break
            try:
                page = await asyncio.wait_for(pool.take(), max(0.001, deadline - loop.time()))
                break
            except TimeoutError:
                raise ExecutionTimeout() from None
            except PoolClosed:
                continue  # the browser restarted under the wait: take a page of the new one
        evaluation = asyncio.ensure_future(evaluate_run_js(page, [code, data, max_bytes]))
        watch = self.watch
        if watch is not None:
            watch.begin()
            evaluation.add_done_callback(lambda _: watch.end())
        crashed: asyncio.Future[None] = (
            loop.create_future()
        )  # a DevTools call on a crashed page never answers

        def on_crash(_: Page) -> None:
            if not crashed.done():
                crashed.set_result(None)

        page.once("crash", on_crash)
        try:
            done, _ = await asyncio.wait(
                {evaluation, crashed},
                timeout=max(0.001, deadline - loop.time()),
                return_when=asyncio.FIRST_COMPLETED,
            )
            if evaluation not in done:
                pool.abandon()
                self._dispose(page, evaluation)
                if crashed in done:
                    raise SandboxCrashed("its renderer ended")
                raise ExecutionTimeout()
            pool.release(page)
            try:
                return evaluation.result()
            except PlaywrightError as exc:
                raise SandboxCrashed(str(exc).splitlines()[0]) from exc
        except asyncio.CancelledError:  # the caller gave up (e.g. the registry's call timeout)
            if evaluation.done():
                pool.release(page)
            else:
                pool.abandon()
                self._dispose(page, evaluation)
            raise

    async def settled(self) -> None:
        """Wait until the sandbox is idle: used pages closed, fresh ones for the next calls open (benchmarks
        time calls on a settled sandbox; no effect before the first call)."""
        while self._cleanups or (self._pool is not None and self._pool.opening):
            await asyncio.gather(*list(self._cleanups), return_exceptions=True)
            if self._pool is not None:
                await self._pool.settled()

    def _background(self, coro: Awaitable[None]) -> None:
        task = asyncio.ensure_future(coro)
        self._cleanups.add(task)
        task.add_done_callback(self._cleanups.discard)

    def _dispose(self, page: Page, evaluation: asyncio.Future[object]) -> None:
        """Kill a page stuck in a loop, in the background (the caller answers at once)."""

        async def close() -> None:
            try:
                await asyncio.wait_for(page.context.close(), KILL_GRACE_S)
            except Exception:
                log.warning("run_javascript: a timed-out page did not close; restarting the sandbox browser")
                async with self._lock:
                    await self._close_browser()
            with contextlib.suppress(BaseException):
                await evaluation

        self._background(close())

    async def _close_browser(self) -> None:
        browser, self._browser = self._browser, None
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close()
        if browser is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(browser.close(), 10)

    async def close(self) -> None:
        for task in list(self._cleanups):
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(task, 5)
        async with self._lock:
            await self._close_browser()
