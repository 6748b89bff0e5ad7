"""The javascript module's part of ``evals.bench.tools``: ``run_javascript {return 1+1}`` warm, side by side
with the same work in plain Playwright (a fresh page, evaluate, close), and 8 concurrent calls vs one.

Targets (issue 14): median <= 60 ms warm, p95 <= 150 ms; 8 concurrent calls <= 3x one call.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from typing import Any

from playwright.async_api import async_playwright

from agent.browser.chromium import require_chromium
from agent.config import load_config
from agent.modules import Toolbox
from evals.bench.snapshot import OFFLINE, pct

CODE = {"code": "return 1 + 1"}


async def _ms(coro: Any) -> float:
    t0 = time.perf_counter()
    await coro
    return (time.perf_counter() - t0) * 1000


async def javascript_timings(reps: int) -> dict[str, float]:
    config = load_config(env={}, overrides={"modules": ["javascript"]})
    plain: list[float] = []
    tool: list[float] = []
    single: list[float] = []
    eight: list[float] = []
    async with async_playwright() as pw, Toolbox(config, handle_signals=False) as tb:
        browser = await pw.chromium.launch(executable_path=require_chromium(), headless=True, args=[OFFLINE])
        context = await browser.new_context()

        async def plain_once() -> None:
            page = await context.new_page()
            await page.evaluate("1 + 1")
            await page.close()

        async def tool_once() -> None:
            result = await tb.call("run_javascript", CODE)
            if result != {"result": 2}:  # also refuses a Node.js fallback answer (it carries "engine")
                raise RuntimeError(f"run_javascript failed: {result}")

        await plain_once()
        await tool_once()  # warm: the module's browser is up
        for _ in range(reps):
            plain.append(await _ms(plain_once()))
            tool.append(await _ms(tool_once()))
        for _ in range(max(3, reps // 4)):
            single.append(await _ms(tool_once()))
            eight.append(await _ms(asyncio.gather(*(tool_once() for _ in range(8)))))
        await browser.close()
    return {
        "plain_run_js_median_ms": round(statistics.median(plain), 2),
        "plain_run_js_p95_ms": round(pct(plain, 0.95), 2),
        "javascript_run_js_median_ms": round(statistics.median(tool), 2),
        "javascript_run_js_p95_ms": round(pct(tool, 0.95), 2),
        "javascript_run_js_ratio_x": round(statistics.median(tool) / max(statistics.median(plain), 1e-6), 2),
        "javascript_concurrent8_median_ms": round(statistics.median(eight), 2),
        "javascript_concurrent8_vs_one_x": round(
            statistics.median(eight) / max(statistics.median(single), 1e-6), 2
        ),
    }
