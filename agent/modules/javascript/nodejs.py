"""The Node.js fallback of ``run_javascript`` (no Chromium; off unless ``node_fallback: true``): the same run.js
in a ``node`` child process, killed at the time limit. No canvas (``getCanvas`` throws a clear error).

Node.js is not a browser sandbox, so the process is confined: Node's permission model (``--permission``, or
``--experimental-permission`` before Node 22) allows file reads and writes only inside a fresh temporary folder
(its working directory, deleted afterwards) and no child processes, workers or native addons; the globals that
reach the network or Node's modules (``fetch``, ``WebSocket``, ``require``, ``process`` ...) are removed before
the code runs; the V8 heap is capped at ``memory_mb``. A Node.js without a permission model is not used. The
module asks the gate first: a fallback call is judged as ``executeJS``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import subprocess
import tempfile
from functools import cache

from kite_browser.agent.base.jsontypes import JsonValue
from kite_browser.agent.base.toolset import JsonObject
from kite_browser.agent.modules.javascript.sandbox import RUN_JS, ExecutionTimeout

HIDDEN_GLOBALS = (
    "fetch",
    "WebSocket",
    "EventSource",
    "XMLHttpRequest",
    "require",
    "module",
    "exports",
    "process",
    "Buffer",
    "__filename",
    "__dirname",
    "navigator",
)
NODE_MAIN = (
    "const run = " + RUN_JS + ";\n"
    "const proc = process, stdout = process.stdout;\n"
    "let raw = '';\n"
    "proc.stdin.on('data', (c) => { raw += c; });\n"
    "proc.stdin.on('end', async () => {\n"
    "  const a = JSON.parse(raw);\n"
    f"  for (const name of {json.dumps(list(HIDDEN_GLOBALS))}) {{\n"
    "    try { delete globalThis[name]; } catch (e) {}\n"
    "    try { if (name in globalThis) globalThis[name] = undefined; } catch (e) {}\n"
    "  }\n"
    "  const out = await run([a.code, a.input, a.maxBytes]);\n"
    "  stdout.write(JSON.stringify(out), () => proc.exit(0));\n"
    "});\n"
)


class NodeUnavailable(Exception):
    pass


@cache
def permission_flag(exe: str) -> str | None:
    """The permission-model flag this Node.js understands, or None (too old: not used)."""
    for flag in ("--permission", "--experimental-permission"):
        try:
            done = subprocess.run([exe, flag, "-e", "0"], capture_output=True, timeout=30, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return None
        if done.returncode == 0:
            return flag
    return None


async def run_in_node(
    node: str, code: str, data: JsonValue, timeout_s: float, max_bytes: int, memory_mb: int = 256
) -> JsonObject:
    exe = shutil.which(node)
    if exe is None:
        raise NodeUnavailable(f"no Node.js executable {node!r} on PATH")
    flag = await asyncio.to_thread(permission_flag, exe)
    if flag is None:
        raise NodeUnavailable(f"{exe} has no permission model (Node.js 20 or later is needed to confine it)")
    with tempfile.TemporaryDirectory(prefix="kite-node-") as folder:
        proc = await asyncio.create_subprocess_exec(
            exe,
            flag,
            f"--allow-fs-read={folder}",
            f"--allow-fs-write={folder}",
            f"--max-old-space-size={memory_mb}",
            "-e",
            NODE_MAIN,
            cwd=folder,
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
        text = [
            x for x in err.decode(errors="replace").strip().splitlines() if "ExperimentalWarning" not in x
        ]
        heap = any("heap out of memory" in x for x in text)
        return {
            "kind": "memory" if heap else "error",
            "name": "NodeError",
            "message": text[-1] if text else "node exited",
            "stack": None,
        }
    return json.loads(out)
