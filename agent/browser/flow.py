"""The reading-order flow of a snapshot: each frame's flow (text lines, element ids, iframe markers, as
extractor.js gives it) joined into one list for the whole page, with global element indexes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from playwright.async_api import Frame


class FrameData(Protocol):
    frame: Frame
    data: dict[str, Any] | None
    shown: bool
    place: tuple[str, int] | None


def splice_flow(
    infos: Sequence[FrameData], by_key: dict[tuple[str, int], int], in_view: set[int]
) -> tuple[list[str | int], dict[int, str]]:
    """The top frame's flow with each shown child frame's flow spliced in at its iframe, and the tails: the
    text after an element in its own list item or table row (``{"t": text}`` in a frame's flow), by the
    element's index, which its line carries (a tail whose element is not placed stays a text line).

    ``infos[0]`` is the top frame; ``by_key`` maps (document token, local id) to the global index; only
    elements in ``in_view`` are placed."""
    children = {i.place: i for i in infos[1:] if i.place is not None and i.shown and i.data}
    tails: dict[int, str] = {}

    def of(info: FrameData, depth: int) -> list[str | int]:
        data = info.data or {}
        token = data.get("token", "")
        out: list[str | int] = []
        for item in data.get("flow") or []:
            if isinstance(item, str):
                out.append(item)
            elif isinstance(item, dict):
                text = str(item.get("t") or "")
                last = out[-1] if out else None
                if isinstance(last, int):
                    tails[last] = f"{tails[last]} | {text}" if last in tails else text
                elif text:
                    out.append(text)
            elif isinstance(item, int):
                index = by_key.get((token, item))
                if index is not None and index in in_view:
                    out.append(index)
            elif isinstance(item, list) and item and depth < 8:
                child = children.get((token, item[0]))
                if child is not None:
                    out.extend(of(child, depth + 1))
        return out

    top = infos[0]
    flow = of(top, 0) if top.data and top.data.get("flow") is not None else []
    return flow, tails
