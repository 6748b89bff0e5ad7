"""Watchdog of the local model server: stops it when the last Kite using it is gone.

Run as a plain script (``python local_watchdog.py STATE_FILE``, stdlib only, so it starts in milliseconds
and never imports litellm). It reads the state file (``server.json``): the server's pid, ``pinned`` (started by
``kite local start``: stays until ``kite local stop``) and ``clients`` (pids of the Kite processes using it).
It sleeps on pidfds of the server and of the clients; whenever one exits it re-reads the state under the
same lock Kite uses, and when no client is alive and the server is not pinned it stops the server. This
covers a Kite killed with SIGKILL, which runs no atexit handler.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import select
import signal
import sys
import time
from pathlib import Path
from typing import TypedDict


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie child still answers kill(0); treat it as gone.
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True


class ServerState(TypedDict):
    """The running local server as its state file records it (``server.json``)."""

    pid: int
    port: int
    model: str
    gguf: str
    log: str
    api_key: str
    pinned: bool
    clients: list[int]
    started_at: float


def read_state(path: Path) -> ServerState | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def terminate(pid: int, grace_s: float = 5.0) -> None:
    """SIGTERM, then SIGKILL after ``grace_s``; returns when the process is gone."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while alive(pid) and time.monotonic() < deadline:
        _wait_exit(pid, max(0.0, deadline - time.monotonic()))
    if alive(pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        _wait_exit(pid, 5.0)


def _wait_exit(pid: int, timeout: float) -> None:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
    try:
        fd = os.pidfd_open(pid)
    except (OSError, AttributeError):
        time.sleep(min(timeout, 0.05))
        return
    try:
        select.select([fd], [], [], timeout)
    finally:
        os.close(fd)


def _decide(state_path: Path, lock_path: Path, server_pid: int) -> list[int] | None:
    """Under the lock: the pids to watch next, or None when the server was stopped (or is gone)."""
    with open(lock_path, "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        state = read_state(state_path)
        if not state or state.get("pid") != server_pid or not alive(server_pid):
            if state and state.get("pid") == server_pid:
                state_path.unlink(missing_ok=True)
            return None
        clients = [pid for pid in state.get("clients", []) if alive(pid)]
        if clients != state.get("clients"):
            state["clients"] = clients
            tmp = state_path.with_suffix(".tmp")
            tmp.write_text(json.dumps(state))
            os.replace(tmp, state_path)
        if not clients and not state.get("pinned"):
            terminate(server_pid)
            state_path.unlink(missing_ok=True)
            return None
        return clients


def watch(state_path: Path, server_pid: int) -> None:
    lock_path = state_path.with_name("server.lock")
    while (clients := _decide(state_path, lock_path, server_pid)) is not None:
        fds = []
        for pid in [server_pid, *clients]:
            with contextlib.suppress(OSError):
                fds.append(os.pidfd_open(pid))
        try:
            # Wake when any watched process exits; the timeout re-reads the state (e.g. `kite local start`
            # pinned the server, or a new client registered) without relying on it for correctness.
            select.select(fds, [], [], 30.0)
        finally:
            for fd in fds:
                os.close(fd)


def main(argv: list[str]) -> int:
    state_path, server_pid = Path(argv[0]), int(argv[1])

    def on_term(*_: object) -> None:
        terminate(server_pid)
        sys.exit(0)

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch(state_path, server_pid)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
