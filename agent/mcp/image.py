"""Screenshots that fit in one MCP reply.

The MCP SDK's HTTP client refuses a server-sent event over 1 MiB, and a full-page PNG of a long page is easily
several: the tool then failed for every HTTP client. A screenshot over ``MAX_IMAGE_BYTES`` is taken again as JPEG
at falling quality, and a full page that still does not fit is cut to its top part, with a note saying so.
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
    """A PNG if it fits in ``MAX_IMAGE_BYTES``; else the best JPEG that does; else the top of the page."""

    async def shoot(**kw: Any) -> bytes:
        if element is not None:
            return await element.screenshot(timeout=timeout_ms, **kw)
        return await page.screenshot(full_page=full_page, timeout=timeout_ms, **kw)

    png = await shoot(type="png")
    if len(png) <= MAX_IMAGE_BYTES:
        return Shot(png, "image/png")
    why = f"the PNG was {len(png) // 1000} kB, over the {MAX_IMAGE_BYTES // 1000} kB one reply carries"
    jpeg = b""
    for quality in QUALITIES:
        jpeg = await shoot(type="jpeg", quality=quality)
        if len(jpeg) <= MAX_IMAGE_BYTES:
            return Shot(jpeg, "image/jpeg", f"JPEG at quality {quality}: {why}")
    if not full_page or element is not None:  # a viewport or element at the lowest quality: sent as it is
        return Shot(jpeg, "image/jpeg", f"JPEG at quality {QUALITIES[-1]}: {why}")
    width, height = await page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
    )
    # JPEG bytes grow about linearly with the area: keep the share of the page that fits, with a margin.
    keep = max(1, min(int(height), math.floor(height * MAX_IMAGE_BYTES / len(jpeg) * 0.85)))
    clip: FloatRect = {"x": 0, "y": 0, "width": max(1, int(width)), "height": keep}
    data = await page.screenshot(
        type="jpeg", quality=QUALITIES[-1], clip=clip, full_page=True, timeout=timeout_ms
    )
    return Shot(data, "image/jpeg", f"only the top {keep} px of the {int(height)} px page: {why}")
