"""Talking to extractor.js in a frame: it runs in Kite's world (``world.py``: out of the page scripts' reach),
registered for every new document of a page and installed on first use in one that predates it; calling it;
and the click listener tracking that goes with it (listeners.js, in the page's own world, hands what it sees to
Kite's world through the DOM)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.async_api import BrowserContext, ElementHandle, Frame
from playwright.async_api import Error as PlaywrightError

from kite_browser.agent.browser.world import FLUSH, MARK, World, world_of

EXTRACTOR_JS = Path(__file__).with_name("extractor.js").read_text(encoding="utf-8")
LISTENERS_JS = Path(__file__).with_name("listeners.js").read_text(encoding="utf-8")
"""A function expression of (FLUSH, MARK): wraps the page's addEventListener to remember elements given
click-like listeners, and hands them to Kite's world when it asks."""
TRACK_JS = f"({LISTENERS_JS})({FLUSH!r}, {MARK!r});"
"""Listener tracking in the page's world (a context init script, or late in a document that predates it)."""
_HEARD_JS = f"""() => {{
  if (window.__kiteListened) return;
  const seen = new WeakSet();
  const flush = () => {{ try {{ window.dispatchEvent(new Event({FLUSH!r})); }} catch (e) {{}} }};
  Object.defineProperty(window, "__kiteListened", {{ value: {{ has: (el) => seen.has(el), flush }} }});
  window.addEventListener({MARK!r}, (ev) => {{ const t = ev.composedPath()[0]; if (t) seen.add(t); }}, true);
}}"""
"""In Kite's world: the set of elements the page's listener tracking reported (``window.__kiteListened``)."""
_MISSING = "__kite_missing__"
_KEY_LINE = re.compile(r'const KEY = "(\w+)";')
WARM_REQ = {
    "fn": "extract",
    "withSummary": True,
    "opts": {"nameChars": 60, "valueChars": 60, "textChars": 500, "flowChars": 2400, "timeBudgetMs": 300},
}
"""The extraction a new document runs once when idle (``ExtractorScript.boot``): its answer is dropped."""
WARM_IDLE_MS = 1000
"""How long that extraction waits for the renderer to be idle after the document is parsed."""
TOP_FRAME_GRACE_S = 1.0
"""How long the top frame's second request may take after the first missed the time cap."""


@dataclass(frozen=True)
class ExtractorScript:
    """An extractor source and the window property it installs itself on.

    Kite uses one (``EXTRACTOR``); a benchmark can load another version beside it in the same page under
    another key (``ExtractorScript.of(old_source, key="__kiteExtractorB")``) and drive both alike."""

    source: str
    key: str
    version: int
    stub: str
    """Calls the installed extractor, or answers ``_MISSING`` when this version is not installed yet."""
    install: str
    """First call in a document: install (in Kite's world: with the listened set it reads)."""
    world: bool = True
    """Runs in Kite's world (Kite's extractor); False: in the page's own world, as extractors before it did
    (only the A/B bench's other side, evals/bench/snapshot_ab.py)."""

    @property
    def boot(self) -> str:
        """The script registered for every new document of a page: the extractor installed in Kite's world,
        and, once the document is parsed and the renderer idle, one extraction nobody asked for yet, so
        the first capture after a navigation finds the extractor's code compiled (V8 compiles a function
        on its first call: the first capture paid for the whole extractor) — skipped when a capture came
        first (an id was given)."""
        return (
            f"(() => {{ try {{ const install = ({self.install}); install({{fn: 'token'}});"
            f" const warm = () => {{ try {{ const a = window[{self.key!r}];"
            f" if (a && a.stats().next === 1) install({json.dumps(WARM_REQ)}); }} catch (e) {{}} }};"
            " document.addEventListener('DOMContentLoaded',"
            f" () => requestIdleCallback(warm, {{timeout: {WARM_IDLE_MS}}}), {{once: true}});"
            " } catch (e) {} })()"
        )

    @classmethod
    def of(
        cls, source: str, key: str | None = None, *, world: bool = True, listeners: str | None = None
    ) -> ExtractorScript:
        """``source``'s extractor; ``world`` False: one of an older commit, in the page's world, with that
        commit's ``listeners`` tracking installed on first use."""
        found = _KEY_LINE.search(source)
        version = re.search(r"const VERSION = (\d+);", source)
        if found is None or version is None:
            raise ValueError("not an extractor source: no 'const KEY = ...' or 'const VERSION = ...' line")
        if key is not None and key != found.group(1):
            source = source[: found.start()] + f'const KEY = "{key}";' + source[found.end() :]
        key = key or found.group(1)
        stub = (
            f"(req) => {{ const a = window[{key!r}];"
            f" if (!a || a.version !== {version.group(1)}) return {_MISSING!r};"
            " return req.json ? a.json(req) : a.call(req); }"
        )
        if world:
            install = f"(req) => {{ try {{ ({_HEARD_JS})(); }} catch (e) {{}} return ({source})(req); }}"
        else:
            track = f"try {{ ({listeners})(); }} catch (e) {{}}" if listeners else ""
            install = f"(req) => {{ {track} return ({source})(req); }}"
        return cls(source, key, int(version.group(1)), stub, install, world)


EXTRACTOR = ExtractorScript.of(EXTRACTOR_JS)
EXTRACTOR_STUB = EXTRACTOR.stub
_tracked: weakref.WeakSet[BrowserContext] = weakref.WeakSet()


async def _call(frame: Frame, req: dict[str, object], script: ExtractorScript = EXTRACTOR) -> Any:
    """Call the extractor in ``frame`` (installing it on first use in this document); JSON back.

    Results travel as one JSON string: Playwright's structured serialisation is several times slower."""
    req = {**req, "json": True}
    if script.world:
        world = _world(frame, script)
        result = await world.call(frame, script.stub, req)
        if (
            result == _MISSING
        ):  # a document that predates the registration: listener tracking may be missing too
            with contextlib.suppress(PlaywrightError):
                await frame.evaluate(TRACK_JS)
            result = await world.call(frame, script.install, req)
    else:
        result = await frame.evaluate(script.stub, req)
        if result == _MISSING:
            result = await frame.evaluate(script.install, req)
    if isinstance(result, str):
        try:
            return json.loads(result)
        except ValueError:
            return result
    return result


call_extractor = _call
"""``call_extractor(frame, {"fn": ...})``: the extractor's API in a frame (installed on first use)."""


def _world(frame: Frame, script: ExtractorScript = EXTRACTOR) -> World:
    """The frame's page's world, with ``script`` registered for its new documents."""
    world = world_of(frame.page)
    if not world.boot_source:
        world.boot_source = script.boot
    return world


_ID_OF_PIN_JS = """(nonce) => { const pins = globalThis.__kitePins; const el = pins && pins.get(nonce);
  if (pins) pins.delete(nonce); const a = window.__kiteExtractor;
  return el && a ? {token: a.token, id: a.idOf(el)} : null; }"""


_OWNER_JS = """function () { const a = window.__kiteExtractor; return a ? {token: a.token, id: a.idOf(this)} : null; }"""


async def id_of_frame(frame: Frame, script: ExtractorScript = EXTRACTOR) -> tuple[str, int] | None:
    """(document token, local id) the extractor in ``frame``'s parent gives the iframe that holds it."""
    parent = frame.parent_frame
    if parent is None:
        return None
    if not script.world:
        res = await _call(parent, {"fn": "idOf", "el": await frame.frame_element()}, script)
        return (res["token"], res["id"]) if isinstance(res, dict) else None
    world = _world(parent, script)
    got = await world.on_owner(frame, parent, _OWNER_JS)
    if got is None:  # the parent's document predates the extractor's registration: install it, ask again
        await _call(parent, {"fn": "token"}, script)
        got = await world.on_owner(frame, parent, _OWNER_JS)
    return (str(got["token"]), int(got["id"])) if isinstance(got, dict) else None


async def id_of(frame: Frame, handle: ElementHandle) -> tuple[str, int] | None:
    """(document token, local id) the extractor in ``frame`` gives the element behind ``handle`` (installing
    the extractor if needed); None when it is not there."""
    await _call(frame, {"fn": "token"})
    world = _world(frame)
    got = await world.call(frame, _ID_OF_PIN_JS, await world.pin(handle))
    return (str(got["token"]), int(got["id"])) if isinstance(got, dict) else None


async def install_listener_tracking(context: BrowserContext) -> None:
    """Track JS click listeners in every document ``context`` loads from now on (idempotent).

    Without it, elements whose only sign of interactivity is a listener added by script are found only
    once the extractor has run in their document (listeners added before that are not seen)."""
    if context in _tracked:
        return
    _tracked.add(context)
    try:
        await context.add_init_script(TRACK_JS)
    except PlaywrightError:
        _tracked.discard(context)


async def ask_frame(
    frame: Frame, req: dict[str, object], wait_s: float, grace_s: float, script: ExtractorScript = EXTRACTOR
) -> tuple[bool, Any]:
    """Call the extractor in ``frame``: ``(True, answer)``, or ``(False, None)`` when no answer came in
    ``wait_s``, or in ``grace_s`` more after asking once more (``grace_s`` 0: no second request).
    Raises PlaywrightError when the frame refused (e.g. navigated away)."""
    calls = {asyncio.ensure_future(_call(frame, req, script))}
    done, _ = await asyncio.wait(calls, timeout=wait_s)
    if not done and grace_s > 0:
        calls.add(asyncio.ensure_future(_call(frame, req, script)))
        done, _ = await asyncio.wait(calls, timeout=grace_s, return_when="FIRST_COMPLETED")
    for pending in calls - done:
        pending.cancel()
    if not done:
        return False, None
    answered = sorted(done, key=lambda t: t.exception() is not None)  # an answer before an error
    return True, answered[0].result()
