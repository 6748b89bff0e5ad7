"""The Node.js fallback of ``run_javascript`` (no Chromium): the same run.js in a ``node`` child process, killed
at the time limit. No canvas (``getCanvas`` throws a clear error)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
from typing import Any

from kite_browser.agent.modules.javascript.sandbox import RUN_JS, ExecutionTimeout

NODE_MAIN = (
    "const run = " + RUN_JS + ";\n"
    "let raw = '';\n"
    "process.stdin.on('data', (c) => { raw += c; });\n"
    "process.stdin.on('end', async () => {\n"
    "  const a = JSON.parse(raw);\n"
    "  const out = await run([a.code, a.input, a.maxBytes]);\n"
    "  process.stdout.write(JSON.stringify(out), () => process.exit(0));\n"
    "});\n"
)


class NodeUnavailable(Exception):
    pass


async def run_in_node(node: str, code: str, data: Any, timeout_s: float, max_bytes: int) -> dict[str, Any]:
    exe = shutil.which(node)
    if exe is None:
        raise NodeUnavailable(f"no Node.js executable {node!r} on PATH")
    proc = await asyncio.create_subprocess_exec(
        exe,
        "-e",
        NODE_MAIN,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    payload = json.dumps({"code": code, "input": data, "maxBytes": max_bytes}).encode()
    try:
        out, err = await asyncio.wait_for(proc.communicate(payload), timeout_s)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(proc.wait(), 5)
        raise ExecutionTimeout() from None
    if proc.returncode != 0 or not out:
        text = err.decode(errors="replace").strip().splitlines()
        return {
            "kind": "error",
            "name": "NodeError",
            "message": text[-1] if text else "node exited",
            "stack": None,
        }
    return json.loads(out)  # type: ignore[no-any-return]
