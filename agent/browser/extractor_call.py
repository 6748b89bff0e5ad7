"""Talking to extractor.js in a frame: installing it on first use in a document, calling it, and the click
listener tracking that goes with it."""

from __future__ import annotations

import asyncio
import json
import re
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.async_api import BrowserContext, Frame
from playwright.async_api import Error as PlaywrightError

EXTRACTOR_JS = Path(__file__).with_name("extractor.js").read_text(encoding="utf-8")
LISTENERS_JS = Path(__file__).with_name("listeners.js").read_text(encoding="utf-8")
"""A function expression: wraps addEventListener to remember elements given click-like listeners."""
_MISSING = "__kite_missing__"
_KEY_LINE = re.compile(r'const KEY = "(\w+)";')
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
    """First call in a document: start listener tracking (if the init script did not), then install."""

    @classmethod
    def of(cls, source: str, key: str | None = None) -> ExtractorScript:
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
        install = f"(req) => {{ try {{ ({LISTENERS_JS})(); }} catch (e) {{}} return ({source})(req); }}"
        return cls(source, key, int(version.group(1)), stub, install)


EXTRACTOR = ExtractorScript.of(EXTRACTOR_JS)
EXTRACTOR_STUB = EXTRACTOR.stub
_tracked: weakref.WeakSet[BrowserContext] = weakref.WeakSet()


async def _call(frame: Frame, req: dict[str, Any], script: ExtractorScript = EXTRACTOR) -> Any:
    """Call the extractor in ``frame`` (installing it on first use in this document); JSON back.

    Results travel as one JSON string: Playwright's structured serialisation is several times slower."""
    req = {**req, "json": True}
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


async def install_listener_tracking(context: BrowserContext) -> None:
    """Track JS click listeners in every document ``context`` loads from now on (idempotent).

    Without it, elements whose only sign of interactivity is a listener added by script are found only
    once the extractor has run in their document (listeners added before that are not seen)."""
    if context in _tracked:
        return
    _tracked.add(context)
    try:
        await context.add_init_script(f"({LISTENERS_JS})();")
    except PlaywrightError:
        _tracked.discard(context)


async def ask_frame(
    frame: Frame, req: dict[str, Any], wait_s: float, grace_s: float, script: ExtractorScript = EXTRACTOR
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
