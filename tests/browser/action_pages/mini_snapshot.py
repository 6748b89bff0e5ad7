"""A small stand-in for agent.browser.snapshot.Snapshotter, for the two drag tests only: the real engine does
not (yet) index draggable spans (``/dynamic/`` #task-a) nor sortable ``<li>`` rows (``/test/sortable.html``).

It indexes interactive elements of every frame (and open shadow roots) with stable indexes, resolves an index
to a live handle, and raises StaleElementError (with a fresh element list) when the element is gone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from playwright.async_api import ElementHandle, Frame, Page
from playwright.async_api import Error as PlaywrightError

from agent.browser.observation import Element, Observation, PageSummary, Rect
from agent.errors import StaleElementError

_COLLECT_JS = """() => {
  const SEL = 'a[href],button,input:not([type=hidden]),select,textarea,[role=button],[role=option],[role=slider],[role=combobox],[contenteditable=true],[draggable=true],li[data-id],[tabindex]';
  const reg = window.__mini || (window.__mini = {ids: new WeakMap(), refs: new Map(), next: 1});
  const out = [];
  const walk = (root, shadow) => {
    root.querySelectorAll('*').forEach((el) => {
      if (el.matches(SEL)) {
        const r = el.getBoundingClientRect();
        if (r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden') {
          let id = reg.ids.get(el);
          if (!id) { id = reg.next++; reg.ids.set(el, id); reg.refs.set(id, new WeakRef(el)); }
          out.push({lid: id, tag: el.tagName.toLowerCase(), shadow,
            name: (el.getAttribute('aria-label') || el.innerText || el.value || el.placeholder || el.id || '').trim().slice(0, 40),
            type: el.type || null, x: r.left, y: r.top, width: r.width, height: r.height,
            inView: r.bottom > 0 && r.top < innerHeight && r.right > 0 && r.left < innerWidth});
        }
      }
      if (el.shadowRoot) walk(el.shadowRoot, true);
    });
  };
  walk(document, false);
  return out;
}"""
_KIND = {
    "a": "link",
    "button": "button",
    "input": "input",
    "textarea": "input",
    "select": "select",
    "img": "image",
}


@dataclass
class Resolved:
    frame: Frame
    handle: ElementHandle
    element: Element


class MiniSnapshotter:
    def __init__(self) -> None:
        self._global: dict[tuple[int, int], int] = {}
        self._where: dict[int, tuple[Frame, int]] = {}
        self._last: dict[Page, Observation] = {}

    async def snapshot(self, page: Page, include_all: bool = False) -> Observation:
        elements: list[Element] = []
        for fi, frame in enumerate(page.frames):
            try:
                items: list[dict[str, Any]] = await frame.evaluate(_COLLECT_JS)
            except PlaywrightError:
                continue
            for it in items:
                key = (id(frame), it["lid"])
                if key not in self._global:
                    self._global[key] = len(self._global)
                    self._where[self._global[key]] = (frame, it["lid"])
                idx = self._global[key]
                el = Element(
                    index=idx,
                    tag=it["tag"],
                    kind=_KIND.get(it["tag"], "other"),
                    name=it["name"],
                    type=it["type"],  # type: ignore[arg-type]
                    rect=Rect(x=it["x"], y=it["y"], width=it["width"], height=it["height"]),
                    in_viewport=it["inView"],
                    frame=None if fi == 0 else str(fi - 1),
                    shadow=it["shadow"],
                )
                if include_all or el.in_viewport:
                    elements.append(el)
        obs = Observation(summary=PageSummary(url=page.url), elements=elements)
        self._last[page] = obs
        return obs

    def last(self, page: Page) -> Observation | None:
        return self._last.get(page)

    async def resolve(self, page: Page, index: int) -> Resolved:
        where = self._where.get(index)
        if where is not None and not where[0].is_detached():
            frame, lid = where
            handle = await frame.evaluate_handle(
                "(lid) => { const r = window.__mini && window.__mini.refs.get(lid); const el = r && r.deref();"
                " return el && el.isConnected ? el : null; }",
                lid,
            )
            el_handle = handle.as_element()
            last = self._last.get(page)
            element = last.element(index) if last else None
            if el_handle is not None and element is not None:
                return Resolved(frame, el_handle, element)
        fresh = await self.snapshot(page)
        listing = [f"[{e.index}] {e.tag} {e.name!r}" for e in fresh.elements]
        raise StaleElementError(
            f"element [{index}] is no longer on the page; here is the current list",
            index=index,
            elements=listing,
        )

    async def details(self, page: Page, indices: list[int]) -> list[Element]:
        last = self._last.get(page)
        return [e for i in indices if last and (e := last.element(i)) is not None]
