"""MCP test helpers: a config file for ``kite mcp`` subprocesses, ``start_server`` (an HTTP server process),
and small readers of tool answers (refs by name, the typed error, the run record)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
import yaml

from kite_browser.agent.browser.procs import with_env
from kite_browser.agent.config import BrowserConfig

MARK = "KITE_TEST_MCP_MARK"
"""Environment marker given to each server process: finds it and every Chromium it started."""


@pytest.fixture(scope="module")
def mcp_home(tmp_path_factory: pytest.TempPathFactory, browser_config: BrowserConfig) -> Path:
    """A folder with ``kite.yaml`` (offline test Chromium, temporary Kite home) and ``runs/``."""
    home = tmp_path_factory.mktemp("mcp")
    cfg = {
        "browser": {
            "chromium_path": browser_config.chromium_path,
            "block_external_hosts": True,
            "data_dir": browser_config.data_dir,
        },
        "mcp": {"runs_dir": str(home / "runs")},
    }
    (home / "kite.yaml").write_text(yaml.safe_dump(cfg), encoding="utf-8")
    return home


def server_argv(home: Path, *flags: str) -> list[str]:
    return [sys.executable, "-m", "kite_browser.agent", "--config", str(home / "kite.yaml"), "mcp", *flags]


def server_env(mark: str) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith("KITE_")}
    return {**keep, MARK: mark}


@dataclass
class HttpServer:
    proc: subprocess.Popen[bytes]
    url: str
    mark: str
    home: Path
    stderr: list[str] = field(default_factory=list)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:  # a hang guard: a server stopped while it still loads the tokenizer (litellm's import, 5 s
                # on a quiet machine, far more at load 15) finishes that first
                self.proc.wait(120)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


def start_http(home: Path, *flags: str, timeout_s: float = 60.0) -> HttpServer:
    """``kite mcp --http --port 0 FLAGS`` in a subprocess; returns once it printed its URL."""
    mark = uuid.uuid4().hex
    proc = subprocess.Popen(
        server_argv(home, "--http", "--port", "0", *flags),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=server_env(mark),
    )
    lines: list[str] = []
    found = threading.Event()

    def pump() -> None:
        assert proc.stderr is not None
        for raw in proc.stderr:
            lines.append(raw.decode(errors="replace"))
            if "listening on" in lines[-1]:
                found.set()

    threading.Thread(target=pump, daemon=True).start()
    if not found.wait(timeout_s):
        proc.kill()
        raise AssertionError("kite mcp --http did not start:\n" + "".join(lines))
    url = re.search(r"listening on (\S+)", next(x for x in lines if "listening on" in x)).group(1)  # type: ignore[union-attr]
    return HttpServer(proc, url, mark, home, lines)


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


def error_of(result: types.CallToolResult) -> dict[str, Any]:
    """The typed error of a failed call (one JSON object on the first line, never a traceback); what follows
    it (a ``stale_element``'s fresh snapshot) is ``error["page"]``."""
    assert result.is_error, f"expected an error, got: {text_of(result)[:300]}"
    body = text_of(result)
    assert "Traceback" not in body
    head, _, page = body.partition("\n")
    error = json.loads(head)
    if page:
        error["page"] = page
    assert re.fullmatch(r"[a-z_]+", error["error"]) and error["message"]
    return error


def ref(text: str, role: str, name: str) -> int:
    """The [N] of the element line ``[N] role name`` (or ``role "name" attrs``; ``[N,M]`` for look-alike
    neighbours; a list item's text may follow after " — ") in a snapshot (fails the test if absent)."""
    quoted, bare = rf"\"{re.escape(name)}\"", rf"{re.escape(name)}(?: — .*)?$"
    m = re.search(rf"^\[(\d+)(?:,\d+)*\] {re.escape(role)} (?:{quoted}|{bare})", text, re.M)
    assert m, f'no {role} "{name}" in:\n{text}'
    return int(m.group(1))


def records(home: Path, *, last: bool = False) -> list[dict[str, Any]]:
    """The run records of every server started with ``home`` (``last``: only the latest one's)."""
    out: list[dict[str, Any]] = []
    paths = sorted((home / "runs").glob("mcp-*/record.jsonl"), key=lambda p: p.stat().st_mtime)
    for path in paths[-1:] if last else paths:
        out += [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    return out


def wait_until(check: Callable[[], bool], timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


@pytest.fixture(scope="module")
def http_server(mcp_home: Path, sites: Any) -> Iterator[HttpServer]:
    """One isolated HTTP server for the module (blocked.test blocked; confirmations need elicitation)."""
    server = start_http(
        mcp_home, "--isolated", "--blocked-domain", "blocked.test", "--secret", "code=hunter2"
    )
    try:
        yield server
    finally:
        server.stop()
    assert server.proc.returncode == 0, "".join(server.stderr)  # SIGTERM: a clean shutdown
    wait_until(lambda: not with_env(MARK, server.mark), 10, "no process of the server left")
