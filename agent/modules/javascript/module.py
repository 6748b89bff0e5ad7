"""The ``javascript`` module (seed 003): ``run_javascript {code, input?, timeout_ms?}``.

The code is the body of an async function with ``input`` and ``getCanvas(width, height)`` in scope; it runs in
a dedicated headless Chromium (its own browser, shared with no other module), on a fresh ``about:blank`` page
that is closed afterwards. Its return value must be JSON-serialisable (``undefined`` answers ``null``). A canvas
it used is exported as PNG into the artifacts folder with a metadata JSON. When no Chromium can start the code
runs in Node.js instead (same contract minus the canvas; the result says ``engine: "node"``).

Safety: the code runs only in its own sandbox page (no site, no cookies, a null origin), so the tool is
``auto``; it never touches a page of another module. Its fetch, WebSocket and WebRTC obey allowed/blocked
domains (the gate's ``protect`` on every sandbox context); one call holds at most ``memory_mb`` (else
``memory_limit``) for at most ``MAX_TIMEOUT_MS``. The Node.js fallback is off by default, confined when on
(``nodejs.py``) and judged as ``executeJS`` (it asks first).
"""

from __future__ import annotations

import base64
import binascii
import json
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from playwright.async_api import BrowserContext
from pydantic import Field, JsonValue

from kite_browser.agent.base.toolset import JsonObject, ToolHints
from kite_browser.agent.browser.actions import ExecuteJS
from kite_browser.agent.browser.holds import hold_raw_context
from kite_browser.agent.config.modules import JavaScriptModuleConfig
from kite_browser.agent.modules.base import (
    CallContext,
    ModuleRuntime,
    Params,
    Tool,
    ToolError,
    ToolModule,
)
from kite_browser.agent.modules.javascript.nodejs import NodeUnavailable, run_in_node
from kite_browser.agent.modules.javascript.sandbox import (
    BrowserUnavailable,
    ExecutionTimeout,
    Sandbox,
    SandboxCrashed,
)
from kite_browser.safety.toolset import CallPlan

DESCRIPTION = (
    "Run JavaScript in an isolated headless browser page and return its JSON result. `code` is the body of "
    "an async function: use `input` (your JSON argument), `await`, and `getCanvas(width, height)` to draw "
    "(the canvas is saved as a PNG and its path returned in `images`). End with `return <value>`."
)


NODE: JsonObject = {"engine": "node"}
"""What the person asked about a Node.js run is shown besides the code."""
MAX_TIMEOUT_MS = 60_000
"""The longest time limit a call may ask for (was 600 s)."""


class RunJavaScriptParams(Params):
    code: str = Field(min_length=1, description="The body of an async function; `return` the result.")
    input: JsonValue = Field(None, description="Any JSON value, available to the code as `input`.")
    timeout_ms: int | None = Field(
        None,
        gt=0,
        le=MAX_TIMEOUT_MS,
        description="Time limit of this call in ms (default: the configured one).",
    )


class JavaScriptModule(ToolModule):
    name = "javascript"

    def __init__(self) -> None:
        self.sandbox: Sandbox | None = None
        self.browser_failed: str | None = None

    async def init(self, runtime: ModuleRuntime) -> None:
        await super().init(runtime)
        domains = runtime.gate.domains

        async def protect(context: BrowserContext) -> None:
            """The domain policy on the sandbox context: routes and WebRTC (``install``), and the request hold
            for the beacons, pings and keepalive fetches no route sees."""
            await domains.install(context)
            if domains.active:
                await hold_raw_context(context, domains.refuse)

        self.sandbox = Sandbox(runtime.config, runtime.pool, protect)  # no browser until the first call

    def tools(self) -> Sequence[Tool]:
        # hints: the code can fetch() anywhere, and the Node.js fallback runs it with the process's rights
        return [
            Tool(
                "run_javascript",
                DESCRIPTION,
                RunJavaScriptParams,
                self.run,
                hints=ToolHints(),
                judge=self.judge,
            )
        ]

    async def shutdown(self) -> None:
        if self.sandbox is not None:
            await self.sandbox.close()

    @property
    def settings(self) -> JavaScriptModuleConfig:
        assert self.runtime is not None
        return self.runtime.config.module_settings.javascript

    async def judge(self, ctx: CallContext, a: RunJavaScriptParams) -> CallPlan:
        """Where the code will run decides what the call amounts to: in the sandbox's own page (its browser
        started here, if it is not running) it is ``auto``; when no Chromium can start, in Node.js, which is
        no browser sandbox: judged as ``executeJS`` (it asks first), and only if the fallback is on."""
        assert self.sandbox is not None
        try:
            await self.sandbox.start()
        except BrowserUnavailable as exc:
            self.browser_failed = str(exc)
            if not self.settings.node_fallback:
                raise ToolError(
                    "browser_not_available",
                    f"no Chromium could start: {exc} (the Node.js fallback is off: module_settings.javascript."
                    "node_fallback)",
                ) from exc
            return CallPlan(action=ExecuteJS(code=a.code), about={"tool": "run_javascript", "args": NODE})
        return CallPlan()

    async def run(self, ctx: CallContext, a: RunJavaScriptParams) -> JsonObject:
        assert self.sandbox is not None
        timeout_ms = a.timeout_ms or self.settings.timeout_ms
        max_bytes = self.settings.max_result_bytes
        node = ctx.verdict is not None and isinstance(ctx.verdict.plan.action, ExecuteJS)  # as judged
        engine = "node" if node else "browser"
        try:
            if node:
                raw = await self._in_node(a, timeout_ms, max_bytes)
            else:
                raw = await self.sandbox.run(a.code, a.input, timeout_ms / 1000, max_bytes)
        except BrowserUnavailable as exc:  # it stopped since the call was judged: judged again next time
            raise ToolError(
                "browser_not_available", f"the sandbox's browser stopped and could not start again: {exc}"
            ) from exc
        except ExecutionTimeout:
            raise self._timeout(timeout_ms, engine) from None
        except SandboxCrashed as exc:
            raise self._memory_limit(f"the sandbox page crashed ({exc})") from exc
        out = self._result(raw, engine)
        if node:
            out["engine"] = "node"
            out["note"] = (
                f"no Chromium could start ({self.browser_failed}); the code ran in Node.js (no canvas)"
            )
        if raw.get("png") or raw.get("canvasError"):
            out["images"] = [self._export(ctx, raw)]
        return out

    async def _in_node(self, a: RunJavaScriptParams, timeout_ms: int, max_bytes: int) -> dict[str, Any]:
        settings = self.settings
        try:
            return await run_in_node(
                settings.node_path, a.code, a.input, timeout_ms / 1000, max_bytes, settings.memory_mb
            )
        except NodeUnavailable as nexc:
            raise ToolError(
                "browser_not_available", f"no Chromium could start ({self.browser_failed}) and {nexc}"
            ) from nexc

    @staticmethod
    def _timeout(timeout_ms: int, engine: str) -> ToolError:
        return ToolError(
            "execution_timeout",
            f"the code did not finish within {timeout_ms} ms and was stopped",
            timeout_ms=timeout_ms,
            engine=engine,
        )

    def _memory_limit(self, what: str) -> ToolError:
        mb = self.settings.memory_mb
        return ToolError(
            "memory_limit",
            f"{what}: the call held more than {mb} MB (module_settings.javascript.memory_mb) and was stopped",
            memory_mb=mb,
        )

    def _result(self, raw: dict[str, Any], engine: str) -> JsonObject:
        kind = raw.get("kind")
        if kind == "ok":
            return {"result": json.loads(raw["json"])}
        if kind == "memory":
            raise self._memory_limit("Node.js ran out of heap")
        if kind == "error":
            raise ToolError(
                "js_execution_failed",
                f"{raw.get('name')}: {raw.get('message')}",
                name=raw.get("name"),
                stack=raw.get("stack"),
                engine=engine,
            )
        if kind == "too_large":
            raise ToolError(
                "result_too_large",
                f"the return value is {raw.get('size')} bytes of JSON; the limit is "
                "module_settings.javascript.max_result_bytes",
                size=raw.get("size"),
            )
        raise ToolError("non_json_serializable_return", f"the return value is not JSON: {raw.get('message')}")

    def _export(self, ctx: CallContext, raw: dict[str, Any]) -> str:
        """Save the canvas PNG and its metadata; a failure raises canvas_export_failed (with the result)."""
        assert self.runtime is not None
        folder: Path = self.runtime.artifacts_dir
        artifact_id = uuid.uuid4().hex
        try:
            data = raw.get("png") or ""
            if not data.startswith("data:image/png;base64,"):
                raise ValueError(raw.get("canvasError") or "the canvas gave no PNG data")
            png = base64.b64decode(data.split(",", 1)[1], validate=True)
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"{artifact_id}.png"
            path.write_bytes(png)
            meta = {
                "id": artifact_id,
                "extension": ".png",
                "type": "image",
                "createdAt": datetime.now(UTC).isoformat(),
                "messageId": ctx.message_id,
                "agentId": ctx.agent_id,
                "width": raw.get("width"),
                "height": raw.get("height"),
                "source": "browser-canvas",
            }
            (folder / f"{artifact_id}.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
        except (OSError, ValueError, binascii.Error) as exc:
            raise ToolError(
                "canvas_export_failed",
                f"the code ran but its canvas could not be saved: {exc}",
                result=json.loads(raw["json"]),
            ) from exc
        return str(path)
