"""The snapshot engine: runs extractor.js in every frame and builds the three-layer ``Observation``.

Index stability: per Playwright ``Page`` a Python-side map (document token, local id) → global index,
where the local id comes from a WeakMap in the frame's JS realm and the token is random per realm. So an
element keeps its index while it stays in the DOM, a replaced node gets a new one, and indexes are never
reused within the page's life. ``resolve`` refuses an index that is not in the current page
(``StaleElementError`` with a fresh element list) — it never returns whatever now sits at that spot.
"""

from __future__ import annotations

import asyncio
import json
import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from playwright.async_api import ElementHandle, Frame, Page
from playwright.async_api import Error as PlaywrightError

from kite_browser.agent.base.errors import StaleElementError
from kite_browser.agent.browser.extractor_call import (
    EXTRACTOR,
    TOP_FRAME_GRACE_S,
    ExtractorScript,
    ask_frame,
    call_extractor,
    id_of_frame,
    install_listener_tracking,
)
from kite_browser.agent.browser.flow import splice_flow
from kite_browser.agent.browser.observation import (
    Counts,
    Element,
    ElementDetails,
    Observation,
    PageSummary,
    Rect,
)
from kite_browser.agent.browser.world import world_of
from kite_browser.agent.config import SnapshotConfig

WANTED_WORDS = 16
"""At most this many of the task's words are looked for outside the viewport."""
WANTED_CAP = 8
"""At most this many elements outside the viewport are listed for holding one of them."""

KEEP_GONE = 2000
"""How many elements that left the page stay known (for the hint of a stale index's error)."""
OFF_LOOP_ELEMENTS = 500
"""From this many elements a snapshot's Python side (a model per element: ~30 µs each) runs in a thread:
10,000 elements held the event loop 0.5-1.3 s, and with it every other caller (the MCP server's sessions)."""
_DETAIL_KEYS = ("attributes", "selector", "xpath", "parentText", "childCount")


@dataclass
class ResolvedElement:
    """An index resolved in the live page: its frame, a handle, and the element as last observed."""

    frame: Frame
    handle: ElementHandle
    element: Element
    ref: tuple[str, int] | None = None
    """(document token, local id) in the extractor's world."""


@dataclass
class _FrameInfo:
    frame: Frame
    path: str | None
    data: dict[str, Any] | None = None
    dx: float = 0.0
    dy: float = 0.0
    shown: bool = True
    place: tuple[str, int] | None = None
    """(parent document token, local id of the iframe element) when known."""


@dataclass
class _PageState:
    next_index: int = 1
    by_key: dict[tuple[str, int], int] = field(default_factory=dict)
    by_index: dict[int, tuple[Frame, str, int]] = field(default_factory=dict)
    known: dict[int, Element] = field(default_factory=dict)
    """Each index's element as last seen; kept a while after it is gone (a stale index's hint), at most
    KEEP_GONE of those."""
    docs: dict[str, tuple[Frame, set[int]]] = field(default_factory=dict)
    """document token -> (its frame, the indexes given in it): a document replaced in its frame takes its
    indexes with it, so the maps hold the live documents' elements, not every element of the page's life."""
    offsets: dict[str, tuple[float, float, str | None]] = field(default_factory=dict)
    """document token -> (dx, dy, frame path) as of the last snapshot."""
    last: Observation | None = None
    count: int = 0
    building: asyncio.Lock = field(default_factory=asyncio.Lock)
    """Held while the index map changes: a big page's build runs in a thread (see OFF_LOOP_ELEMENTS)."""


def _frame_paths(page: Page) -> list[_FrameInfo]:
    infos = [_FrameInfo(page.main_frame, None)]
    i = 0
    while i < len(infos):
        parent = infos[i]
        for n, child in enumerate(parent.frame.child_frames):
            if child.is_detached() or child.url.startswith("chrome-error:"):
                continue
            path = str(n) if parent.path is None else f"{parent.path}.{n}"
            infos.append(_FrameInfo(child, path))
        i += 1
    return infos


class Snapshotter:
    """Extracts observations of pages and keeps each page's index map."""

    def __init__(self, config: SnapshotConfig | None = None, script: ExtractorScript = EXTRACTOR) -> None:
        """``script``: the extractor to run (another version only in benchmarks: evals/bench/snapshot.py)."""
        self.config = config or SnapshotConfig()
        self.script = script
        self._pages: weakref.WeakKeyDictionary[Page, _PageState] = weakref.WeakKeyDictionary()

    def _state(self, page: Page) -> _PageState:
        state = self._pages.get(page)
        if state is None:
            state = self._pages[page] = _PageState()
        return state

    def last(self, page: Page) -> Observation | None:
        """The latest observation of ``page`` (None before the first snapshot)."""
        state = self._pages.get(page)
        return state.last if state else None

    def kept(self, page: Page) -> dict[str, int]:
        """The sizes of what this snapshotter keeps for ``page`` between snapshots (tests check they stay
        bounded)."""
        s = self._state(page)
        return {
            "by_key": len(s.by_key),
            "by_index": len(s.by_index),
            "known": len(s.known),
            "docs": len(s.docs),
        }

    def index_keys(self, page: Page) -> dict[tuple[str, int], int]:
        """(document token, local id) -> global index for every element of ``page`` indexed so far."""
        return dict(self._state(page).by_key)

    def _opts(
        self,
        include_all: bool,
        whole_flow: bool = False,
        flow_chars: int | None = None,
        wanted: Sequence[str] = (),
    ) -> dict[str, object]:
        c = self.config
        chars = max(c.flow_chars, flow_chars or 0)
        return {
            "nameChars": c.name_chars,
            "valueChars": c.name_chars,
            "textChars": c.text_chars,
            # whole-page listings render no flow unless asked for (``whole_flow``: the page's text with them)
            "flowChars": chars if whole_flow or not include_all else 0,
            "flowWhole": include_all and whole_flow,
            "includeOffscreen": include_all,
            "wanted": [w.lower() for w in wanted][:WANTED_WORDS],
            "wantedCap": WANTED_CAP,
            "timeBudgetMs": int(c.time_cap_ms * 0.6),
        }

    async def snapshot(
        self,
        page: Page,
        *,
        include_all: bool = False,
        whole_flow: bool = False,
        flow_chars: int | None = None,
        wanted: Sequence[str] = (),
    ) -> Observation:
        """One observation of ``page``. ``include_all`` also lists elements outside the viewport;
        ``whole_flow`` (with it) makes ``flow`` the whole page in reading order, not only the viewport;
        ``flow_chars`` collects more text for the flow than ``snapshot.flow_chars``; ``wanted`` (words, from
        the task) also lists up to ``WANTED_CAP`` elements outside the viewport whose text or label holds one
        (``in_viewport`` false, not in the flow: the prompt names them apart).

        Never hangs: after ``config.time_cap_ms`` it returns what it has with ``summary.warnings``."""
        t0 = time.perf_counter()
        cap = self.config.time_cap_ms / 1000
        warnings: list[str] = []
        await install_listener_tracking(page.context)  # at once when the session set the context up
        infos = _frame_paths(page)
        req = {"fn": "extract", "opts": self._opts(include_all, whole_flow, flow_chars, wanted)}

        async def extract(info: _FrameInfo) -> None:
            r = {**req, "withSummary": info.path is None}
            # The top frame is asked once more: on a starved machine its first answer can be missed (seen under
            # 3 test processes on 2 cores: the next snapshot answered in 0.1 s) and without it the observation
            # is empty. A frozen page costs TOP_FRAME_GRACE_S more: still bounded.
            grace = TOP_FRAME_GRACE_S if info.path is None else 0.0
            try:
                ok, info.data = await ask_frame(
                    info.frame, r, max(cap - (time.perf_counter() - t0), 0.05), grace, self.script
                )
            except PlaywrightError as exc:
                warnings.append(f"frame {info.path or 'top'}: {str(exc).splitlines()[0][:160]}")
                return
            if not ok:
                took = round((time.perf_counter() - t0) * 1000)
                warnings.append(
                    f"frame {info.path or 'top'}: no answer within the time cap ({took} ms); left out"
                )

        async def locate(info: _FrameInfo) -> tuple[str, int] | None:
            try:
                return await asyncio.wait_for(
                    id_of_frame(info.frame, self.script), max(cap - (time.perf_counter() - t0), 0.05)
                )
            except (TimeoutError, PlaywrightError):
                return None

        results = await asyncio.gather(*(extract(i) for i in infos), *(locate(i) for i in infos[1:]))
        places = results[len(infos) :]
        self._place_frames(infos, list(places))
        state = self._state(page)  # made here, on the loop, never in the build's thread
        async with state.building:
            if sum(len(i.data["elements"]) for i in infos if i.data) < OFF_LOOP_ELEMENTS:
                obs = self._build(page, infos, warnings, include_all)
            else:
                obs = await asyncio.to_thread(self._build, page, infos, warnings, include_all)
        obs.timings.update(_page_timings(infos))
        obs.timings["extract_ms"] = round((time.perf_counter() - t0) * 1000, 2)
        return obs

    @staticmethod
    def _place_frames(infos: list[_FrameInfo], places: list[tuple[str, int] | None]) -> None:
        """Offset of each child frame in top-level coordinates; hide frames whose iframe is not shown."""
        by_frame = {id(i.frame): i for i in infos}
        for info, place in zip(infos[1:], places, strict=True):
            info.place = place
            parent = by_frame.get(id(info.frame.parent_frame))
            entry = None
            if place and parent and parent.data and parent.data.get("token") == place[0]:
                entry = next((f for f in parent.data["frames"] if f["id"] == place[1]), None)
            if entry is None or parent is None or not parent.shown:
                info.shown = False
                continue
            info.dx, info.dy = parent.dx + entry["x"], parent.dy + entry["y"]
            info.shown = bool(entry["visible"]) and not entry["covered"]

    def _build(
        self, page: Page, infos: list[_FrameInfo], warnings: list[str], include_all: bool
    ) -> Observation:
        state = self._state(page)
        top = infos[0].data or {}
        s = top.get("summary") or {}
        size = page.viewport_size
        vw = s.get("vw") or (size["width"] if size else 0)
        vh = s.get("vh") or (size["height"] if size else 0)
        elements: list[Element] = []
        counts = Counts()
        above = below = 0
        first = state.count == 0
        self._forget(state, infos)
        for info in infos:
            data = info.data
            if not data or not info.shown:
                continue
            token = data["token"]
            state.offsets[token] = (info.dx, info.dy, info.path)
            warnings.extend(f"frame {info.path}: {w}" if info.path else w for w in data.get("warnings", []))
            above += data["above"]
            below += data["below"]
            c = data["counts"]
            counts.buttons += c["button"]
            counts.inputs += c["input"]
            counts.links += c["link"]
            counts.selects += c["select"]
            counts.images += data["images"]
            counts.forms += data["forms"]
            for r in data["elements"]:
                el = self._element(state, info.frame, token, r, info.dx, info.dy, info.path, first)
                if r["where"] == "in" and info.path is not None and not _intersects(el.rect, vw, vh):
                    el.in_viewport = False
                    if el.rect.y + el.rect.height <= 0:
                        above += 1
                    else:
                        below += 1
                    if not include_all:
                        continue
                elements.append(el)
        summary = PageSummary(
            url=s.get("url") or page.url,
            title=s.get("title") or "",
            viewport={"width": int(vw or 0), "height": int(vh or 0)},
            scroll={"x": float(s.get("sx") or 0), "y": float(s.get("sy") or 0)},
            page_size={"width": float(s.get("pw") or 0), "height": float(s.get("ph") or 0)},
            counts=counts,
            visible_text=s.get("text") or "",
            focused=state.by_key.get((top.get("token", ""), s["focused"])) if s.get("focused") else None,
            above=above,
            below=below,
            warnings=warnings,
            frames=[
                i.frame.url
                for i in infos[1:]
                if i.shown and i.data and i.frame.url not in ("", "about:blank")
            ],
        )
        placed = {e.index for e in elements if e.in_viewport or include_all}
        flow, tails = splice_flow(infos, state.by_key, placed)
        obs = Observation(summary=summary, elements=elements, flow=flow, tails=tails)
        state.last = obs
        state.count += 1
        return obs

    @staticmethod
    def _forget(state: _PageState, infos: list[_FrameInfo]) -> None:
        """Drop the indexes of elements gone from their document (extractor.js reports them once) and of
        documents replaced in their frame; cap what stays known of them."""
        now = {id(i.frame): i.data["token"] for i in infos if i.data}
        for info in infos:
            if not info.data or not info.data.get("gone"):
                continue
            token = info.data["token"]
            doc = state.docs.get(token)
            for local in info.data["gone"]:
                index = state.by_key.pop((token, local), None)
                if index is not None:
                    state.by_index.pop(index, None)
                    if doc is not None:
                        doc[1].discard(index)
        for token, (frame, indexes) in list(state.docs.items()):
            if frame.is_detached() or now.get(id(frame), token) != token:
                del state.docs[token]
                for index in indexes:
                    if (entry := state.by_index.pop(index, None)) is not None:
                        state.by_key.pop((entry[1], entry[2]), None)
        extra = len(state.known) - len(state.by_index) - KEEP_GONE
        if extra > 0:  # the oldest gone first (indexes grow; a live one is kept)
            for index in [i for i in state.known if i not in state.by_index][:extra]:
                del state.known[index]

    @staticmethod
    def _element(
        state: _PageState,
        frame: Frame,
        token: str,
        r: dict[str, Any],
        dx: float,
        dy: float,
        path: str | None,
        first: bool,
    ) -> Element:
        key = (token, r["id"])
        index = state.by_key.get(key)
        is_new = index is None
        if index is None:
            index = state.next_index
            state.next_index += 1
            state.by_key[key] = index
            state.by_index[index] = (frame, token, r["id"])
            state.docs.setdefault(token, (frame, set()))[1].add(index)
        el = Element.model_construct(
            index=index,
            tag=r["tag"],
            kind=r["kind"],
            role=r.get("role"),
            name=r.get("name") or "",
            type=r.get("type"),
            placeholder=r.get("placeholder"),
            value=r.get("value"),
            href=r.get("href"),
            options=r.get("options"),
            more_options=r.get("moreOptions") or 0,
            checked=r.get("checked"),
            selected=r.get("selected"),
            disabled=bool(r.get("disabled")),
            expanded=r.get("expanded"),
            editable=bool(r.get("editable")),
            attrs=r.get("attrs") or {},
            rect=Rect.model_construct(x=r["x"] + dx, y=r["y"] + dy, width=r["w"], height=r["h"]),
            in_viewport=r["where"] == "in",
            frame=path,
            shadow=bool(r.get("shadow")),
            is_new=is_new and not first,
            aria_hidden=bool(r.get("ariaHidden")),
        )
        state.known[index] = el
        return el

    async def _stale(self, page: Page, index: int) -> StaleElementError:
        from kite_browser.agent.browser.render import render_observation
        from kite_browser.agent.browser.targets_hint import same_element_now

        was = self._state(page).known.get(index)
        try:
            obs = await self.snapshot(page)
        except PlaywrightError as exc:  # the page itself is gone
            elements, hint = f"(no element list: {str(exc).splitlines()[0][:120]})", ""
        else:
            elements = await asyncio.to_thread(  # token counting: CPU work, off the event loop
                render_observation, obs, with_summary=False, budget_tokens=self.config.token_budget
            )
            hint = same_element_now(was, obs.elements)
        return StaleElementError(
            f"element [{index}] is not in the current page{hint}; use an index from the fresh element list",
            index=index,
            elements=elements,
        )

    async def resolve(self, page: Page, index: int) -> ResolvedElement:
        """The live element behind ``index``, or ``StaleElementError`` if it is no longer in the page."""
        state = self._state(page)
        entry = state.by_index.get(index)
        if entry is not None:
            frame, token, local = entry
            if not frame.is_detached():
                el = await self._handle(frame, token, local)
                if el is not None:
                    return ResolvedElement(
                        frame=frame, handle=el, element=state.known[index], ref=(token, local)
                    )
        raise await self._stale(page, index)

    async def _handle(self, frame: Frame, token: str, local: int) -> ElementHandle | None:
        """A Playwright handle of the element behind (token, local) in ``frame`` (found in Kite's world)."""
        if self.script.world:
            return await world_of(frame.page).handle(frame, token, local)
        try:
            handle = await frame.evaluate_handle(self.script.stub, {"fn": "get", "id": local, "token": token})
        except PlaywrightError:
            return None
        el = handle.as_element()
        if el is None:
            await handle.dispose()
        return el

    async def call(self, frame: Frame, fn: str, arg: object) -> Any:  # the page's JSON answer
        """``fn`` (a JS function expression of one JSON argument) called with ``arg`` where the extractor
        runs (Kite's world of ``frame``)."""
        if self.script.world:
            return await world_of(frame.page).call(frame, fn, arg)
        return await frame.evaluate(fn, arg)

    async def resolve_with(self, page: Page, index: int, js: str) -> tuple[ResolvedElement, Any]:
        """``resolve``, and ``js`` (a function expression of the element) run on it in the same round trip:
        both calls go out together and the frame answers them in order. Its answer is None when it threw or
        the element is not there (the caller then asks through the handle, as before)."""
        state = self._state(page)
        entry = state.by_index.get(index)
        if entry is None or entry[0].is_detached():
            return await self.resolve(page, index), None
        frame, token, local = entry
        req = {"fn": "get", "id": local, "token": token}
        call = (
            f"(req) => {{ const el = ({self.script.stub})(req);"
            f" if (!el || el.nodeType !== 1) return null; try {{ return ({js})(el); }} catch (e) {{ return null; }} }}"
        )
        resolved: ResolvedElement | BaseException
        got: Any
        resolved, got = await asyncio.gather(
            self.resolve(page, index), self.call(frame, call, req), return_exceptions=True
        )
        if isinstance(resolved, BaseException):
            raise resolved
        return resolved, None if isinstance(got, BaseException) else got

    async def read_each(self, page: Page, indexes: list[int], js: str) -> dict[int, Any]:
        """``js`` (a read-only function expression of an element) run on the element behind each of
        ``indexes``, in one call per frame (the frames asked at once): its answer per index. An index not in
        a live frame, whose element is gone, or on which ``js`` threw, is left out; a frame that refused
        leaves out its indexes."""
        state = self._state(page)
        by_frame: dict[Frame, list[tuple[int, str, int]]] = {}
        for index in indexes:
            entry = state.by_index.get(index)
            if entry is not None and not entry[0].is_detached():
                by_frame.setdefault(entry[0], []).append((index, entry[1], entry[2]))
        call = (
            f"(reqs) => {{ const get = ({self.script.stub});"
            " return reqs.map(([token, id]) => { const el = get({fn: 'get', id, token});"
            f" if (!el || el.nodeType !== 1) return null; try {{ return ({js})(el); }} catch (e) {{ return null; }} }}); }}"
        )

        async def ask(frame: Frame, entries: list[tuple[int, str, int]]) -> list[Any]:
            try:
                got = await self.call(frame, call, [[token, local] for _, token, local in entries])
            except PlaywrightError:
                return []
            return got if isinstance(got, list) else []

        frames = list(by_frame)
        answers = await asyncio.gather(*(ask(f, by_frame[f]) for f in frames))
        out: dict[int, Any] = {}
        for frame, got in zip(frames, answers, strict=True):
            for (index, _, _), value in zip(by_frame[frame], got, strict=False):
                if value is not None:
                    out[index] = value
        return out

    def element(self, page: Page, index: int) -> Element | None:
        """The element behind ``index`` as last observed (None when the page never had it)."""
        return self._state(page).known.get(index)

    def reread_call(self, page: Page, index: int) -> tuple[Frame, str, dict[str, object]] | None:
        """What ``reread`` asks the page, for a caller that asks it inside a call of its own (one round trip
        fewer): the frame, a function expression of the request answering the extractor's JSON (a string; not
        the record when the extractor is not installed there), and the request. None when ``index`` is not
        in a live frame."""
        entry = self._state(page).by_index.get(index)
        if entry is None or entry[0].is_detached():
            return None
        frame, token, local = entry
        req = {"fn": "details", "ids": [local], "token": token, "opts": self._opts(False), "json": True}
        return frame, self.script.stub, req

    async def reread_from(self, page: Page, index: int, answer: object) -> Element | None:
        """``reread``'s element from the answer of a ``reread_call`` (None when it is not one: ask again)."""
        state = self._state(page)
        entry = state.by_index.get(index)
        try:
            rec = json.loads(answer)[0] if isinstance(answer, str) else None
        except (ValueError, LookupError, TypeError):
            rec = None
        if not isinstance(rec, dict) or entry is None:
            return None
        return await self._element_now(state, entry, rec)

    async def _element_now(
        self, state: _PageState, entry: tuple[Frame, str, int], rec: dict[str, Any]
    ) -> Element:
        """The element of ``entry`` (frame, document token, local id) from the extractor's record read now."""
        dx, dy, path = state.offsets.get(entry[1], (0.0, 0.0, None))
        async with state.building:
            return self._element(state, entry[0], entry[1], rec, dx, dy, path, True)

    async def _fresh(self, page: Page, index: int) -> tuple[Element, dict[str, Any]]:
        """The element behind ``index`` described again now, and the extractor's full record."""
        state = self._state(page)
        entry = state.by_index.get(index)
        rec = None
        if entry is not None and not entry[0].is_detached():
            frame, token, local = entry
            req: dict[str, object] = {
                "fn": "details",
                "ids": [local],
                "token": token,
                "opts": self._opts(False),
            }
            try:
                rec = (
                    await asyncio.wait_for(
                        call_extractor(frame, req, self.script), self.config.time_cap_ms / 1000
                    )
                )[0]
            except (TimeoutError, PlaywrightError):
                rec = None
        if rec is None or entry is None:
            raise await self._stale(page, index)
        return await self._element_now(state, entry, rec), rec

    async def reread(self, page: Page, index: int) -> Element:
        """The element behind ``index`` as it reads now (its name, text, form target, href): what the page
        may have changed since the snapshot the safety policy judged. ``StaleElementError`` if it is gone."""
        return (await self._fresh(page, index))[0]

    async def details(self, page: Page, indices: list[int]) -> list[ElementDetails]:
        """Layer 3 for each index (all attributes, selector, XPath, parent text, child count, rect)."""
        out: list[ElementDetails] = []
        for index in indices:
            base, rec = await self._fresh(page, index)
            extra = {k: rec[k] for k in _DETAIL_KEYS}
            out.append(
                ElementDetails(
                    **{**base.model_dump(), "rect": base.rect.model_dump()},
                    attributes=extra["attributes"],
                    selector=extra["selector"],
                    xpath=extra["xpath"],
                    parent_text=extra["parentText"],
                    child_count=extra["childCount"],
                )
            )
        return out


def _intersects(rect: Rect, vw: float, vh: float) -> bool:
    return rect.x + rect.width > 0 and rect.y + rect.height > 0 and rect.x < vw and rect.y < vh


def _page_timings(infos: list[_FrameInfo]) -> dict[str, float]:
    """The extractor's own time in the pages (``js_ms``, all frames) and per phase (``js_walk_ms``, ...)."""
    out: dict[str, float] = {"js_ms": 0.0}
    for info in infos:
        data = info.data or {}
        out["js_ms"] += float(data.get("ms") or 0.0)
        for phase, ms in (data.get("phases") or {}).items():
            out[f"js_{phase}_ms"] = out.get(f"js_{phase}_ms", 0.0) + float(ms)
    return {k: round(v, 2) for k, v in out.items()}
