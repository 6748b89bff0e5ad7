"""A one-element observation for the safety policy: what a selector-addressed tool call acts on.

The policy judges elements from observations (never from what a caller claims). For ``chrome_click``,
``chrome_type`` and ``chrome_fill`` one round trip reads the target's tag, role, accessible-ish name, type and
identifying attributes, plus the page's URL and the start of its text (to tell a sensitive page); the call is
then judged as the matching Kite action on element 0 of that observation. For a click the same round trip also
finds where a real mouse click lands (the executor's hit test, ``HIT_JS``), so the click itself needs no
further look at the element.
"""

from __future__ import annotations

import contextlib
from typing import Any

from playwright.async_api import ElementHandle, Page
from playwright.async_api import Error as PlaywrightError

from kite_browser.agent.browser.exec.hit import HIT_JS
from kite_browser.agent.browser.observation import Element, Observation, PageSummary, Rect

_PROBE_JS = """(e) => {
  const attr = (n) => e.getAttribute(n) || '';
  const tag = e.tagName.toLowerCase();
  let label = '';
  if (e.labels && e.labels.length) label = e.labels[0].innerText;
  const name = (attr('aria-label') || label || attr('placeholder') || attr('title') || attr('alt') ||
                (tag === 'input' ? attr('value') : e.innerText) || '').trim().replace(/\\s+/g, ' ').slice(0, 80);
  return {tag, role: attr('role') || null, name, type: tag === 'input' ? (e.type || 'text') : null,
          href: tag === 'a' ? e.href || null : null, editable: !!(e.isContentEditable || ['input', 'textarea'].includes(tag)),
          attrs: {id: e.id || '', name: attr('name'), autocomplete: attr('autocomplete')},
          text: (document.body ? document.body.innerText : '').slice(0, 3000)};
}"""
_PROBE_HIT_JS = (
    f"(e) => ({{info: ({_PROBE_JS})(e), hit: {{...({HIT_JS})(e), "
    "disabled: e.matches(':disabled') || !!e.closest('[aria-disabled=true]')}})"
)


def _kind(info: dict[str, Any]) -> str:
    tag, role, typ = info["tag"], info.get("role") or "", (info.get("type") or "").lower()
    if tag == "a" or role == "link":
        return "link"
    if tag == "button" or role == "button" or typ in ("submit", "button", "reset", "image"):
        return "button"
    if tag == "select":
        return "select"
    if tag in ("input", "textarea") or info.get("editable"):
        return "input"
    return "other"


async def probe(page: Page, handle: ElementHandle) -> Observation:
    """The page with just the target element (index 0); on failure an observation without elements."""
    info: dict[str, Any] | None = None
    with contextlib.suppress(PlaywrightError):
        info = await handle.evaluate(_PROBE_JS)
    return _observation(page, info)


async def probe_click(page: Page, handle: ElementHandle) -> tuple[Observation, dict[str, Any] | None]:
    """``probe`` plus where a click lands (``{visible, hit: self|other|ancestor|none, cx, cy, disabled}``),
    in one round trip; the spot is None when the element could not be read."""
    out: dict[str, Any] | None = None
    with contextlib.suppress(PlaywrightError):
        out = await handle.evaluate(_PROBE_HIT_JS)
    return _observation(page, (out or {}).get("info")), (out or {}).get("hit")


def _observation(page: Page, info: dict[str, Any] | None) -> Observation:
    summary = PageSummary(url=page.url, visible_text=(info or {}).get("text", ""))
    if not info:
        return Observation(summary=summary, elements=[])
    el = Element(
        index=0,
        tag=info["tag"],
        kind=_kind(info),  # type: ignore[arg-type]
        role=info.get("role"),
        name=info.get("name") or "",
        type=info.get("type"),
        href=info.get("href"),
        editable=bool(info.get("editable")),
        attrs={k: v for k, v in info.get("attrs", {}).items() if v},
        rect=Rect(x=0, y=0, width=0, height=0),
    )
    return Observation(summary=summary, elements=[el])
