"""executeJS: run code in the page, return a JSON-safe value, stop it after js_timeout_ms.

The code runs through CDP ``Runtime.evaluate`` (which a strict Content-Security-Policy without 'unsafe-eval'
does not block); ``page.evaluate`` only when there is no CDP session."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable
from typing import Literal, TypeVar

from playwright.async_api import CDPSession
from playwright.async_api import Error as PlaywrightError
from pydantic import Field

from kite_browser.agent.base.errors import CRASHED_TAB_ADVICE, BrowserCrashedError, browser_failure
from kite_browser.agent.base.jsontypes import JsonValue
from kite_browser.agent.browser.exec.base import ExecContext, JSError, JSTimeoutError, Outcome
from kite_browser.agent.browser.exec.cdp import cdp_session
from kite_browser.agent.browser.exec.spec import ActionModel, ActKind, FaceParam, ToolFace, define_action


class ExecuteJS(ActionModel):
    """Run JavaScript in the page and return its (JSON-safe) result. Always asks the user first."""

    action: Literal["executeJS"] = "executeJS"
    code: str = Field(
        min_length=1, description="A JS expression or function body; `return` a value to get it back."
    )


MAX_CHARS = 20000

# Makes any value JSON-safe (DOM nodes named, cycles cut, depth and length bounded).
_SAFE_JS = """(value) => {
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

# Runs the code as an expression, or as a function body when it is not one; the value made JSON-safe.
# Through page.evaluate (no CDP session) ``new Function`` may be refused by the page's CSP; through CDP it is not.
RUN_JS = (
    """async (code) => {
  let fn;
  try { fn = new Function('return (async () => (' + code + '\\n))()'); }
  catch (e) { if (e instanceof EvalError) throw e; fn = new Function('return (async () => {' + code + '\\n})()'); }
  return ("""
    + _SAFE_JS
    + """)(await fn());
}"""
)


T = TypeVar("T")


async def _cdp_eval(cdp: CDPSession, code: str) -> JsonValue:
    """Run ``RUN_JS`` with Runtime.evaluate: DevTools may compile strings (``new Function``) even where the
    page's CSP forbids eval (allowUnsafeEvalBlockedByCSP), so executeJS works on strict-CSP pages too."""
    res = await cdp.send(
        "Runtime.evaluate",
        {
            "expression": f"({RUN_JS})({json.dumps(code)})",
            "awaitPromise": True,
            "returnByValue": True,
            "allowUnsafeEvalBlockedByCSP": True,
        },
    )
    details = res.get("exceptionDetails")
    if details:
        exc = details.get("exception") or {}
        msg = str(exc.get("description") or details.get("text") or "error").splitlines()[0]
        raise JSError(f"the script threw: {msg}")
    return res.get("result", {}).get("value")


async def _bounded(ec: ExecContext, cdp: CDPSession | None, work: Awaitable[T]) -> T:
    """Await ``work`` for at most js_timeout_ms; a runaway script is terminated (it would block the page). A
    tab that crashes meanwhile ends the wait at once: DevTools never answers a call on a crashed renderer
    (the action waited for the step's 60 s limit)."""
    timeout = ec.config.browser.js_timeout_ms / 1000
    page = ec.page
    crashed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def on_crash(_: object) -> None:
        if not crashed.done():
            crashed.set_result(None)

    page.on("crash", on_crash)
    try:
        return await _until_crash(ec, cdp, asyncio.ensure_future(work), crashed, timeout)
    finally:
        page.remove_listener("crash", on_crash)
        crashed.cancel()


async def _until_crash(
    ec: ExecContext,
    cdp: CDPSession | None,
    task: asyncio.Future[T],
    crashed: asyncio.Future[None],
    limit_s: float,
) -> T:
    try:
        both: set[asyncio.Future[T] | asyncio.Future[None]] = {task, crashed}
        done, _ = await asyncio.wait(both, timeout=limit_s, return_when=asyncio.FIRST_COMPLETED)
        if task in done:
            return task.result()
        if crashed in done:
            task.cancel()
            raise BrowserCrashedError(f"the tab crashed while the script ran; {CRASHED_TAB_ADVICE}")
        raise TimeoutError
    except TimeoutError:
        if cdp is not None:
            with contextlib.suppress(PlaywrightError, TimeoutError):
                await asyncio.wait_for(cdp.send("Runtime.terminateExecution"), 2)
        with contextlib.suppress(PlaywrightError, TimeoutError, JSError):
            await asyncio.wait_for(task, 2)
        raise JSTimeoutError(
            f"the script did not finish within {ec.config.browser.js_timeout_ms} ms and was stopped",
            timeout_ms=ec.config.browser.js_timeout_ms,
        ) from None
    except PlaywrightError as exc:
        failure = browser_failure(str(exc))
        if failure["error"] == BrowserCrashedError.type:
            raise BrowserCrashedError(failure["message"]) from exc
        msg = str(exc).splitlines()[0].removeprefix("Error: ").removeprefix("Page.evaluate: ")
        raise JSError(f"the script threw: {msg}") from exc


async def execute_js(ec: ExecContext, action: ExecuteJS) -> Outcome:
    page = ec.page
    cdp = await cdp_session(
        page
    )  # opened before the script runs: attaching later can hang behind a busy page
    work = _cdp_eval(cdp, action.code) if cdp is not None else page.evaluate(RUN_JS, action.code)
    value: JsonValue = await _bounded(ec, cdp, work)
    text = repr(value)
    truncated = len(text) > MAX_CHARS
    shown = text if len(text) <= 300 else text[:300] + "..."
    data: dict[str, object] = {"value": value if not truncated else text[:MAX_CHARS], "truncated": truncated}
    return Outcome("evaluate", f"script returned {shown}", data=data)


EVALUATE_FACE = ToolFace(
    "evaluate",
    "Run JavaScript in the page and return its JSON result (asks the user first).",
    "acts",
    (FaceParam("code", "code", "A JS expression or function body; `return` a value."),),
    (ActKind("evaluate", text="code", says="JavaScript"),),
)
define_action(ExecuteJS, execute_js, safety="confirm", rank=160, face=EVALUATE_FACE)
