"""Screenshots that fit in one MCP reply.

The MCP SDK's HTTP client refuses a server-sent event over 1 MiB, and a full-page PNG of a long page is easily
several: the tool then failed for every HTTP client. A screenshot over ``MAX_IMAGE_BYTES`` is taken again as JPEG
at falling quality; a viewport, full page or element that still does not fit is cut to its top part. A JPEG
always comes with a note saying its quality, size and what it shows (cut or whole).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from playwright.async_api import ElementHandle, FloatRect, Page

MAX_IMAGE_BYTES = 600_000
"""Raw image bytes per reply: base64 makes 800 kB of it, leaving room under the 1 MiB event limit."""
QUALITIES = (80, 55, 30)


@dataclass
class Shot:
    data: bytes
    mime: Literal["image/png", "image/jpeg"]
    note: str = ""


async def fitted_screenshot(
    page: Page, *, full_page: bool = False, element: ElementHandle | None = None, timeout_ms: float = 10000
) -> Shot:
    """A PNG if it fits in ``MAX_IMAGE_BYTES``; else the best JPEG that does; else the top of the viewport,
    page or element at the lowest quality. Every JPEG's note says its quality, size and what it shows."""

    async def shoot(**kw: Any) -> bytes:
        if element is not None:
            return await element.screenshot(timeout=timeout_ms, **kw)
        return await page.screenshot(full_page=full_page, timeout=timeout_ms, **kw)

    what = "element" if element is not None else "page" if full_page else "viewport"
    png = await shoot(type="png")
    if len(png) <= MAX_IMAGE_BYTES:
        return Shot(png, "image/png")
    why = f"the PNG was {_kb(png)}, over the {MAX_IMAGE_BYTES // 1000} kB one reply carries"
    jpeg = b""
    for quality in QUALITIES:
        jpeg = await shoot(type="jpeg", quality=quality)
        if len(jpeg) <= MAX_IMAGE_BYTES:
            return Shot(
                jpeg, "image/jpeg", f"a JPEG at quality {quality}, {_kb(jpeg)}, of the whole {what}: {why}"
            )
    x, y, width, height = await _region(page, what, element)
    # JPEG bytes grow about linearly with the area: keep the share that fits, with a margin.
    keep = max(1, min(int(height), math.floor(height * MAX_IMAGE_BYTES / len(jpeg) * 0.85)))
    clip: FloatRect = {"x": x, "y": y, "width": max(1, width), "height": keep}
    data = await page.screenshot(
        type="jpeg", quality=QUALITIES[-1], clip=clip, full_page=True, timeout=timeout_ms
    )
    over = f", still over the {MAX_IMAGE_BYTES // 1000} kB limit" if len(data) > MAX_IMAGE_BYTES else ""
    return Shot(
        data,
        "image/jpeg",
        f"a JPEG at quality {QUALITIES[-1]}, {_kb(data)}{over}, of only the top {keep} px of the {int(height)} px "
        f"{what} (the whole {what} was {_kb(jpeg)} even at that quality): {why}",
    )


def _kb(data: bytes) -> str:
    return f"{len(data) // 1000} kB"


async def _region(page: Page, what: str, element: ElementHandle | None) -> tuple[float, float, float, float]:
    """x, y, width, height of what was shot, in page coordinates (a full-page screenshot's clip)."""
    if element is not None and (box := await element.bounding_box()) is not None:
        sx, sy = await page.evaluate("() => [window.scrollX, window.scrollY]")
        return box["x"] + sx, box["y"] + sy, box["width"], box["height"]
    if what == "viewport":
        x, y, w, h = await page.evaluate("() => [scrollX, scrollY, innerWidth, innerHeight]")
        return x, y, w, h
    w, h = await page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
    )
    return 0, 0, w, h
