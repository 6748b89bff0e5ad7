"""Screenshots that fit in one MCP reply.

The MCP SDK's HTTP client refuses a server-sent event over 1 MiB, and a full-page PNG of a long page is easily
several: the tool then failed for every HTTP client. A screenshot over ``MAX_IMAGE_BYTES`` is sent as JPEG at
falling quality; a viewport, full page or element that still does not fit is cut to its top part. A JPEG
always comes with a note saying its quality, size and what it shows (cut or whole).

The browser is asked for one picture only, a PNG; the JPEGs and the cut are made from it here (Pillow). Each
capture of a long page makes Chromium render and hold the whole page at once: five of them in a row (a PNG,
three JPEG qualities, the cut) took five times as long and, on a loaded machine, crashed the page's renderer
("Target crashed"). A full page taller than ``MAX_CAPTURE_PX`` is captured only down to that height.
"""

from __future__ import annotations

import asyncio
import io
import math
from dataclasses import dataclass
from typing import Any, Literal

from PIL import Image
from playwright.async_api import ElementHandle, FloatRect, Page

MAX_IMAGE_BYTES = 600_000
"""Raw image bytes per reply: base64 makes 800 kB of it, leaving room under the 1 MiB event limit."""
QUALITIES = (80, 55, 30)
MAX_CAPTURE_PX = 16_384
"""The tallest full page captured (CSS px): Chromium's largest texture side; below it a page is cut anyway."""


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
    what = "element" if element is not None else "page" if full_page else "viewport"
    kw: dict[str, Any] = {"type": "png", "timeout": timeout_ms}
    height = 0.0
    capped = ""
    if element is not None:
        png = await element.screenshot(**kw)
    else:
        if full_page:
            width, height = await page.evaluate(
                "() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
            )
            if height > MAX_CAPTURE_PX:
                clip: FloatRect = {"x": 0, "y": 0, "width": max(1, width), "height": MAX_CAPTURE_PX}
                kw["clip"] = clip
                capped = f" (captured down to {MAX_CAPTURE_PX} px only)"
        png = await page.screenshot(full_page=full_page, **kw)
    if len(png) <= MAX_IMAGE_BYTES and not capped:
        return Shot(png, "image/png")
    if len(png) <= MAX_IMAGE_BYTES:
        return Shot(
            png, "image/png", f"a PNG of only the top {MAX_CAPTURE_PX} px of the {int(height)} px page"
        )
    if not height:
        height = await _css_height(page, what, element)
    why = f"the PNG was {_kb(png)}, over the {MAX_IMAGE_BYTES // 1000} kB one reply carries{capped}"
    return await asyncio.to_thread(_fit_jpeg, png, what, height, why)


def _fit_jpeg(png: bytes, what: str, css_height: float, why: str) -> Shot:
    """The PNG as the best-quality JPEG that fits; else its top part at the lowest quality."""
    with Image.open(io.BytesIO(png)) as opened:
        image = opened.convert("RGB")
    jpeg = b""
    for quality in QUALITIES:
        jpeg = _jpeg(image, quality)
        if len(jpeg) <= MAX_IMAGE_BYTES:
            return Shot(
                jpeg, "image/jpeg", f"a JPEG at quality {quality}, {_kb(jpeg)}, of the whole {what}: {why}"
            )
    scale = image.height / css_height if css_height else 1.0  # device pixels per CSS pixel
    # JPEG bytes grow about linearly with the area: keep the share that fits, with a margin; cut more if not.
    rows = max(1, math.floor(image.height * MAX_IMAGE_BYTES / len(jpeg) * 0.85))
    data = _jpeg(image.crop((0, 0, image.width, rows)), QUALITIES[-1])
    while len(data) > MAX_IMAGE_BYTES and rows > 1:
        rows = max(1, rows * 3 // 4)
        data = _jpeg(image.crop((0, 0, image.width, rows)), QUALITIES[-1])
    keep = max(1, round(rows / scale))
    over = f", still over the {MAX_IMAGE_BYTES // 1000} kB limit" if len(data) > MAX_IMAGE_BYTES else ""
    whole = round(css_height) if css_height else image.height
    return Shot(
        data,
        "image/jpeg",
        f"a JPEG at quality {QUALITIES[-1]}, {_kb(data)}{over}, of only the top {keep} px of the {whole} px "
        f"{what} (the whole {what} was {_kb(jpeg)} even at that quality): {why}",
    )


def _jpeg(image: Image.Image, quality: int) -> bytes:
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=quality)
    return out.getvalue()


def _kb(data: bytes) -> str:
    return f"{len(data) // 1000} kB"


async def _css_height(page: Page, what: str, element: ElementHandle | None) -> float:
    """The height, in CSS px, of what was shot (the PNG's is in device pixels)."""
    if element is not None and (box := await element.bounding_box()) is not None:
        return float(box["height"])
    if what == "viewport":
        return float(await page.evaluate("() => innerHeight"))
    return float(await page.evaluate("() => document.documentElement.scrollHeight"))
