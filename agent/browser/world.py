"""Kite's world in a page: where everything Kite reads to judge or describe a page runs, out of the page's reach.

A page's scripts share the DOM with Kite but not its JavaScript: Kite's scripts (the extractor, the input
guard, the second look and the hit test) run in Playwright's utility world, an isolated world Chromium gives
every frame (``Page.createIsolatedWorld``). It has its own globals and prototypes, so a page that replaces
``EventTarget.prototype.addEventListener``, redefines the ``textContent``/``innerText``/``href`` getters or
enumerates ``window`` to find and disarm Kite's objects changes nothing Kite reads there and finds nothing of
Kite; listeners Kite adds there still fire on the page's events.

Two doors lead into the world:

* **calls** go over a CDP session of the frame's target (``Runtime.callFunctionOn`` in the world's execution
  context, found with ``Page.createIsolatedWorld`` under Playwright's utility world name); a Playwright
  ``Frame`` is matched to its CDP frame id by the frame tree (the main frame: the tree's root; a frame in its
  own process: the root of its own session's tree; other frames: their place among their parent's children);
* **element handles** for Playwright's own actions come from a selector engine registered with
  ``content_script`` (it runs in the same world): ``kite-world=get:<token>:<id>`` answers the element the
  extractor knows under that id, and ``kite-world=pin:<nonce>`` leaves the element a handle names in the world
  (for a target found by a selector or a point), so calls can name it.

The extractor is also registered per page with ``Page.addScriptToEvaluateOnNewDocument`` in that world, so
every new document has it before Kite first asks (the first capture after a navigation does not install it;
it also warms it up once the document is parsed: extractor_call.py), and the world's execution context in a
frame's new document is asked for as its navigation commits, so the first call after the load is one round trip.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import weakref
from dataclasses import dataclass, field
from typing import Any

from playwright.async_api import CDPSession, ElementHandle, Frame, Page, Playwright
from playwright.async_api import Error as PlaywrightError

ENGINE = "kite-world"
"""The name of Kite's selector engine (registered on every Playwright driver Kite starts)."""
ENGINE_JS = """{
  queryAll(root, sel) {
    const w = globalThis;
    if (sel.startsWith("pin:")) { (w.__kitePins || (w.__kitePins = new Map())).set(sel.slice(4), root); return []; }
    if (sel.startsWith("get:")) {
      const [, token, id] = sel.split(":");
      const api = w.__kiteExtractor;
      const el = api && api.token === token ? api.get(Number(id)) : null;
      return el ? [el] : [];
    }
    return [];
  },
  query(root, sel) { return this.queryAll(root, sel)[0] || null; },
}"""
FLUSH = "kiteflush" + secrets.token_hex(6)
"""The event the world sends the page's listener tracking (listeners.js) to hear of new listened elements."""
MARK = "kitemark" + secrets.token_hex(6)
"""The event listeners.js dispatches on each such element; the world's capture listener remembers it."""
WORLD_PREFIX = "__playwright_utility_world_"
_GONE = ("Cannot find context", "context was destroyed", "No frame", "Execution context", "Target closed")


class WorldError(PlaywrightError):
    """Kite's world is not reachable in a frame (the frame went away, or the browser refused a session)."""


async def register_engine(pw: Playwright) -> None:
    """Register Kite's selector engine on a driver (idempotent: a second registration is ignored)."""
    with contextlib.suppress(PlaywrightError):
        await pw.selectors.register(ENGINE, ENGINE_JS, content_script=True)


@dataclass
class _Session:
    cdp: CDPSession
    root: str
    """The CDP frame id of the session's root frame."""
    contexts: dict[str, int] = field(default_factory=dict)
    """CDP frame id -> the execution context of Kite's world in its current document."""
    coming: dict[str, asyncio.Task[int]] = field(default_factory=dict)
    """CDP frame id -> the context of Kite's world in the document the frame just navigated to, asked for as
    the navigation commits (``Page.frameNavigated``), so the first call after it needs one round trip."""
    booted: bool = False


class World:
    """Kite's world in one page's frames: calls into it, and element handles out of it."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.name = ""
        """Playwright's utility world name in this page."""
        self._main: _Session | None = None
        self._sessions: weakref.WeakKeyDictionary[Frame, _Session] = weakref.WeakKeyDictionary()
        self._ids: weakref.WeakKeyDictionary[Frame, tuple[_Session, str]] = weakref.WeakKeyDictionary()
        self._own: weakref.WeakKeyDictionary[Frame, bool] = weakref.WeakKeyDictionary()
        self._lock = asyncio.Lock()
        self.boot_source = ""
        """A script run in the world at the start of every new document (the extractor's registration)."""

    def kept(self) -> int:
        """How many frames' contexts the world keeps (tests check frames that left take theirs along)."""
        sessions = [self._main, *self._sessions.values()]
        return sum(len(s.contexts.keys() | s.coming.keys()) for s in sessions if s is not None)

    async def _session(self, target: Page | Frame) -> _Session:
        cdp = await self.page.context.new_cdp_session(target)
        names: list[str] = []
        cdp.on("Runtime.executionContextCreated", lambda e: names.append(e["context"].get("name", "")))
        await cdp.send("Runtime.enable")
        await cdp.send("Runtime.disable")
        tree = await cdp.send("Page.getFrameTree")
        if not self.name:
            self.name = next((n for n in names if n.startswith(WORLD_PREFIX)), "")
        session = _Session(cdp, tree["frameTree"]["frame"]["id"])
        if self.boot_source and self.name:
            cdp.on("Page.frameNavigated", lambda e: self._navigated(session, e["frame"]["id"]))
            cdp.on("Page.frameDetached", lambda e: _forget(session, e["frameId"]))
            with contextlib.suppress(PlaywrightError):
                await cdp.send("Page.enable")  # scripts for new documents run only with the domain on
                await cdp.send(
                    "Page.addScriptToEvaluateOnNewDocument",
                    {"source": self.boot_source, "worldName": self.name},
                )
                session.booted = True
        return session

    def _navigated(self, session: _Session, frame_id: str) -> None:
        """A frame of ``session`` has a new document: its world's context is asked for now, while the page
        loads, rather than found missing by the first call after the load (two round trips more)."""
        session.contexts.pop(frame_id, None)
        old = session.coming.pop(frame_id, None)
        if old is not None:
            old.cancel()
        task = asyncio.ensure_future(self._create(session, frame_id))
        task.add_done_callback(_quiet)
        session.coming[frame_id] = task

    async def _create(self, session: _Session, frame_id: str) -> int:
        res = await session.cdp.send(
            "Page.createIsolatedWorld",
            {"frameId": frame_id, "worldName": self.name, "grantUniveralAccess": True},
        )
        return int(res["executionContextId"])

    async def _main_session(self) -> _Session:
        if self._main is None:
            async with self._lock:
                if self._main is None:
                    self._main = await self._session(self.page)
        return self._main

    async def _owns_session(self, frame: Frame) -> _Session | None:
        """The frame's own session when it runs in its own process (an out-of-process iframe), else None."""
        if frame in self._sessions:
            return self._sessions[frame]
        if self._own.get(frame) is False:
            return None
        try:
            session = await self._session(frame)
        except PlaywrightError:
            self._own[frame] = False
            return None
        self._sessions[frame] = session
        return session

    async def frame_id(self, frame: Frame) -> tuple[_Session, str]:
        """The CDP session that holds ``frame`` and its CDP frame id."""
        known = self._ids.get(frame)
        if known is not None:
            return known
        parent = frame.parent_frame
        if parent is None:
            main = await self._main_session()
            got = (main, main.root)
        else:
            session, parent_id = await self.frame_id(parent)
            child = await _child_id(session, parent_id, parent, frame)
            if child is not None:
                got = (session, child)
            elif (own := await self._owns_session(frame)) is not None:  # not in the parent's process
                got = (own, own.root)
            else:
                raise WorldError("the frame is not in its parent's frame tree")
        self._ids[frame] = got
        return got

    async def _context(self, session: _Session, frame_id: str, fresh: bool) -> int:
        coming = session.coming.pop(frame_id, None)
        if coming is not None and not fresh:
            with contextlib.suppress(PlaywrightError):
                session.contexts[frame_id] = await coming
        ctx = None if fresh else session.contexts.get(frame_id)
        if ctx is None:
            ctx = session.contexts[frame_id] = await self._create(session, frame_id)
        return ctx

    async def call(self, frame: Frame, fn: str, arg: object = None) -> Any:  # the page's JSON answer
        """``fn`` (a JS function expression of one JSON argument) called with ``arg`` in Kite's world of
        ``frame``; its value (awaited when a promise) as JSON. Raises ``WorldError`` when the frame is gone,
        and a ``PlaywrightError`` with the message when ``fn`` threw."""
        if frame.is_detached():
            raise WorldError("the frame was detached")
        try:
            session, frame_id = await self.frame_id(frame)
        except PlaywrightError as exc:
            raise WorldError(f"no session for the frame: {exc}") from exc
        for fresh in (False, True):
            try:
                ctx = await self._context(session, frame_id, fresh)
                res = await session.cdp.send(
                    "Runtime.callFunctionOn",
                    {
                        "functionDeclaration": fn,
                        "executionContextId": ctx,
                        "arguments": [{"value": arg}],
                        "returnByValue": True,
                        "awaitPromise": True,
                    },
                )
            except PlaywrightError as exc:
                if fresh or not any(m in str(exc) for m in _GONE):
                    if any(m in str(exc) for m in _GONE):
                        self._ids.pop(frame, None)
                        raise WorldError(str(exc).splitlines()[0]) from exc
                    raise
                continue
            if "exceptionDetails" in res:
                details = res["exceptionDetails"]
                text = (details.get("exception") or {}).get("description") or details.get("text", "")
                raise PlaywrightError(f"in Kite's world: {text}")
            return res["result"].get("value")
        raise WorldError("no execution context")  # pragma: no cover - the loop returns or raises

    async def on_owner(self, frame: Frame, parent: Frame, fn: str) -> Any:
        """``fn`` (a ``function () {...}`` of ``this``) called in the parent's world on the iframe element that
        holds ``frame`` (found by the browser: ``DOM.getFrameOwner``); its value as JSON, None when not found."""
        _, child_id = await self.frame_id(frame)
        session, parent_id = await self.frame_id(parent)
        owner = await session.cdp.send("DOM.getFrameOwner", {"frameId": child_id})
        for fresh in (False, True):
            ctx = await self._context(session, parent_id, fresh)
            try:
                node = await session.cdp.send(
                    "DOM.resolveNode", {"backendNodeId": owner["backendNodeId"], "executionContextId": ctx}
                )
            except PlaywrightError as exc:
                if fresh or not any(m in str(exc) for m in _GONE):
                    raise
                continue
            object_id = node["object"]["objectId"]
            try:
                res = await session.cdp.send(
                    "Runtime.callFunctionOn",
                    {"functionDeclaration": fn, "objectId": object_id, "returnByValue": True},
                )
            finally:  # released without waiting for the answer: nothing depends on it
                release = asyncio.ensure_future(
                    session.cdp.send("Runtime.releaseObject", {"objectId": object_id})
                )
                release.add_done_callback(_quiet)
            return None if "exceptionDetails" in res else res["result"].get("value")
        return None

    async def handle(self, frame: Frame, token: str, local: int) -> ElementHandle | None:
        """A Playwright handle of the element the extractor knows as ``local`` in the document ``token``."""
        try:
            return await frame.query_selector(f"{ENGINE}=get:{token}:{local}")
        except PlaywrightError:
            return None

    async def pin(self, handle: ElementHandle) -> str:
        """Leave ``handle``'s element in its frame's world under a fresh name (``globalThis.__kitePins``)."""
        nonce = secrets.token_hex(8)
        await handle.query_selector(f"{ENGINE}=pin:{nonce}")
        return nonce


def _forget(session: _Session, frame_id: str) -> None:
    """A frame left its session's page (an ad's iframe replaced): what is kept of it goes too."""
    session.contexts.pop(frame_id, None)
    coming = session.coming.pop(frame_id, None)
    if coming is not None:
        coming.cancel()


def _quiet(task: asyncio.Future[Any]) -> None:
    """Retrieve a background request's error (the frame navigated on or went away: the next call asks again;
    an object to release went with its document)."""
    if not task.cancelled():
        task.exception()


async def _child_id(session: _Session, parent_id: str, parent: Frame, frame: Frame) -> str | None:
    """The CDP id of ``frame`` among its parent's children in the session's frame tree: the one with its URL
    and name, in the same order among those; None when it is not there (a frame in its own process is not)."""
    tree = (await session.cdp.send("Page.getFrameTree"))["frameTree"]
    stack = [tree]
    node = None
    while stack:
        cur = stack.pop()
        if cur["frame"]["id"] == parent_id:
            node = cur
            break
        stack.extend(cur.get("childFrames", []))
    if node is None:
        raise WorldError("the parent frame is not in its session's frame tree")
    key = (frame.url, frame.name)
    same = [
        c["frame"]["id"]
        for c in node.get("childFrames", [])
        if (c["frame"]["url"] + c["frame"].get("urlFragment", ""), c["frame"].get("name", "")) == key
    ]
    peers = [f for f in parent.child_frames if (f.url, f.name) == key]
    rank = peers.index(frame) if frame in peers else 0
    return same[min(rank, len(same) - 1)] if same else None


_WORLDS: weakref.WeakKeyDictionary[Page, World] = weakref.WeakKeyDictionary()


def world_of(page: Page) -> World:
    """The page's world (one per page; its sessions open on first use)."""
    world = _WORLDS.get(page)
    if world is None:
        world = _WORLDS[page] = World(page)
    return world
