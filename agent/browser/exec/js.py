"""executeJS: run code in the page, return a JSON-safe value, stop it after js_timeout_ms."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from playwright.async_api import CDPSession, Page
from playwright.async_api import Error as PlaywrightError

from agent.browser.actions import ExecuteJS
from agent.browser.exec.base import ExecContext, JSError, JSTimeoutError, Outcome

MAX_CHARS = 20000

# Runs the user's code as an expression, or as a function body when it is not one; makes the value JSON-safe.
_RUN_JS = """async (code) => {
  let fn;
  try { fn = new Function('return (async () => (' + code + '\\n))()'); }
  catch (e) { fn = new Function('return (async () => {' + code + '\\n})()'); }
  const value = await fn();
  const seen = new WeakSet();
  const safe = (v, depth) => {
    if (v === undefined) return null;
    if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
    if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'function') return `[function ${v.name || 'anonymous'}]`;
    if (typeof v === 'symbol') return v.toString();
    if (v instanceof Node) return v.nodeType === 1 ? `<${v.tagName.toLowerCase()}${v.id ? '#' + v.id : ''}>` : `[${v.nodeName}]`;
    if (seen.has(v)) return '[circular]';
    if (depth > 6) return '[...]';
    seen.add(v);
    if (Array.isArray(v) || v instanceof NodeList || v instanceof HTMLCollection) return Array.from(v).slice(0, 500).map((x) => safe(x, depth + 1));
    if (v instanceof Map) return Object.fromEntries(Array.from(v).slice(0, 500).map(([k, x]) => [String(k), safe(x, depth + 1)]));
    if (v instanceof Set) return Array.from(v).slice(0, 500).map((x) => safe(x, depth + 1));
    if (v instanceof Date) return v.toISOString();
    if (v instanceof Error) return `${v.name}: ${v.message}`;
    const out = {};
    for (const k of Object.keys(v).slice(0, 500)) out[k] = safe(v[k], depth + 1);
    return out;
  };
  return safe(value, 0);
}"""


async def _cdp(page: Page) -> CDPSession | None:
    """A CDP session opened before the script runs: attaching later can hang behind a busy renderer."""
    try:
        return await page.context.new_cdp_session(page)
    except PlaywrightError:
        return None  # not Chromium, or attach refused


async def execute_js(ec: ExecContext, action: ExecuteJS) -> Outcome:
    page = ec.page
    timeout = ec.config.browser.js_timeout_ms / 1000
    cdp = await _cdp(page)
    task = asyncio.ensure_future(page.evaluate(_RUN_JS, action.code))
    try:
        value: Any = await asyncio.wait_for(asyncio.shield(task), timeout)
    except TimeoutError:
        if cdp is not None:  # stop the runaway script: a busy loop would block every later action
            with contextlib.suppress(PlaywrightError):
                await cdp.send("Runtime.terminateExecution")
        with contextlib.suppress(PlaywrightError, TimeoutError):
            await asyncio.wait_for(task, 2)
        raise JSTimeoutError(
            f"the script did not finish within {ec.config.browser.js_timeout_ms} ms and was stopped",
            timeout_ms=ec.config.browser.js_timeout_ms,
        ) from None
    except PlaywrightError as exc:
        msg = str(exc).splitlines()[0].removeprefix("Error: ").removeprefix("Page.evaluate: ")
        raise JSError(f"the script threw: {msg}") from exc
    finally:
        if cdp is not None:
            with contextlib.suppress(PlaywrightError):
                await cdp.detach()
    text = repr(value)
    truncated = len(text) > MAX_CHARS
    shown = text if len(text) <= 300 else text[:300] + "..."
    data: dict[str, Any] = {"value": value if not truncated else text[:MAX_CHARS], "truncated": truncated}
    return Outcome("evaluate", f"script returned {shown}", data=data)
