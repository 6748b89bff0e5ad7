"""Start, share and stop the local model server (``llama-server-vulkan``, CPU fallback).

One server per data dir. ``server.json`` (written under ``server.lock``) records its pid, port, whether it is
``pinned`` (``kite local start``: stays until ``kite local stop``) and ``clients``: the Kite processes using
it. A Kite that finds a healthy server registers itself as a client and reuses it; when a Kite exits it
unregisters (atexit; SIGTERM/SIGHUP are turned into a normal exit), and the last one out stops the server. A
small watchdog process (``local_watchdog.py``) does the same when a Kite dies without running atexit.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import FrameType

from kite_browser.agent.llm import local_watchdog as watchdog
from kite_browser.agent.llm.local_errors import LocalServerError, LocalServerTimeoutError
from kite_browser.agent.llm.local_install import LocalPaths, file_lock
from kite_browser.agent.llm.local_pins import CONTEXT_TOKENS, MODEL_ALIAS
from kite_browser.agent.llm.local_watchdog import ServerState

HEALTH_TIMEOUT_S = 180.0
_registered: set[Path] = set()


def read_state(paths: LocalPaths) -> ServerState | None:
    return watchdog.read_state(paths.state)


def write_state(paths: LocalPaths, state: ServerState) -> None:
    tmp = paths.state.with_suffix(".tmp")
    tmp.touch(mode=0o600)
    tmp.write_text(json.dumps(state, indent=1))
    os.replace(tmp, paths.state)


def state_lock(paths: LocalPaths) -> contextlib.AbstractContextManager[None]:
    return file_lock(paths.root / "server.lock")


def live_state(paths: LocalPaths) -> ServerState | None:
    """The recorded server if its process is still running (a stale state file is removed)."""
    state = read_state(paths)
    if state and watchdog.alive(int(state.get("pid", 0))):
        return state
    if state:
        paths.state.unlink(missing_ok=True)
    return None


def health(port: int, timeout_s: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=timeout_s) as reply:
            return reply.status == 200 and json.loads(reply.read() or b"{}").get("status") == "ok"
    except (OSError, ValueError, urllib.error.URLError):
        return False


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cpu_threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def server_command(paths: LocalPaths, port: int, threads: int | None = None) -> list[str]:
    return [
        str(paths.server_script), "-m", str(paths.gguf), "--jinja", "-c", str(CONTEXT_TOKENS),
        "-t", str(threads or cpu_threads()), "--host", "127.0.0.1", "--port", str(port), "--alias", MODEL_ALIAS,
        # Pages the agent browses must not reach the model: no web UI, CORS only for its own origin, and an
        # API key (passed in the environment, not on the command line).
        "--no-webui", "--cors-origins", f"http://127.0.0.1:{port}", "--no-warmup",
    ]  # fmt: skip


def log_tail(paths: LocalPaths, lines: int = 15) -> str:
    try:
        text = paths.log.read_text(errors="replace")
    except OSError:
        return "(no server log)"
    return "\n".join(text.splitlines()[-lines:])


def spawn(paths: LocalPaths, *, pinned: bool, threads: int | None = None) -> ServerState:
    """Start the server (on ``threads`` CPU threads, default every core) and its watchdog; the caller holds the
    state lock. Returns the new state."""
    port = free_port()
    api_key = secrets.token_urlsafe(24)
    libs = [str(paths.server_script.parent), *filter(None, [os.environ.get("LD_LIBRARY_PATH")])]
    env = dict(os.environ, LD_LIBRARY_PATH=":".join(libs), LLAMA_API_KEY=api_key)
    with open(paths.log, "wb") as log:
        try:
            server = subprocess.Popen(
                server_command(paths, port, threads), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                env=env, start_new_session=True,
            )  # fmt: skip
        except OSError as exc:
            raise LocalServerError(f"cannot start {paths.server_script}: {exc.strerror}") from exc
    state: ServerState = {
        "pid": server.pid, "port": port, "model": MODEL_ALIAS, "gguf": str(paths.gguf), "log": str(paths.log),
        "api_key": api_key, "pinned": pinned, "clients": [] if pinned else [os.getpid()], "started_at": time.time(),
    }  # fmt: skip
    write_state(paths, state)
    subprocess.Popen(
        [sys.executable, watchdog.__file__, str(paths.state), str(server.pid)], stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True,
    )  # fmt: skip
    _forget_child(server)
    return state


_EXITS: dict[int, int] = {}
"""Exit codes of servers this process started and reaped, by pid (read while waiting for one to start)."""


def _forget_child(proc: subprocess.Popen[bytes]) -> None:
    """Reap the server when it exits, without keeping it as a Popen that warns on interpreter exit."""

    def reap() -> None:
        _EXITS[proc.pid] = proc.wait()

    threading.Thread(target=reap, name="kite-local-reaper", daemon=True).start()


def _exit_words(pid: int) -> str:
    code = _EXITS.get(pid)
    if code == -signal.SIGILL:
        return (
            " on an illegal instruction: this llama-server build needs a CPU feature this machine lacks"
            " (report the CPU's flags from /proc/cpuinfo)"
        )
    return f" (exit code {code})" if code is not None else ""


async def wait_healthy(paths: LocalPaths, pid: int, port: int, timeout_s: float = HEALTH_TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not watchdog.alive(pid):
            raise LocalServerError(
                f"the local model server exited while starting{_exit_words(pid)}. "
                f"Last lines of {paths.log}:\n{log_tail(paths)}",
                log=str(paths.log),
            )
        if await asyncio.to_thread(health, port, 2.0):
            return
        await asyncio.sleep(0.25)  # polling /health against a deadline
    raise LocalServerTimeoutError(
        f"the local model server (pid {pid}, port {port}) was not healthy after {timeout_s:.0f}s. "
        f"Last lines of {paths.log}:\n{log_tail(paths)}",
        log=str(paths.log),
        port=port,
    )


def add_client(paths: LocalPaths, state: ServerState) -> None:
    """Record this process as a user of the server; caller holds the lock."""
    me = os.getpid()
    clients = [pid for pid in state.get("clients", []) if watchdog.alive(pid)]
    if me not in clients:
        clients.append(me)
    state["clients"] = clients
    write_state(paths, state)
    register_exit(paths)


def register_exit(paths: LocalPaths) -> None:
    """Unregister (and stop the server if we were its last user) when this process exits."""
    if paths.root in _registered:
        return
    _registered.add(paths.root)
    atexit.register(release, paths)
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGHUP):
            if signal.getsignal(sig) in (signal.SIG_DFL, None):
                signal.signal(sig, _exit_on_signal)


def _exit_on_signal(signum: int, _frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


def release(paths: LocalPaths) -> None:
    """This process no longer uses the server; the last user of an unpinned server stops it."""
    with state_lock(paths):
        state = live_state(paths)
        if not state:
            return
        me = os.getpid()
        clients = [pid for pid in state.get("clients", []) if pid != me and watchdog.alive(pid)]
        if clients or state.get("pinned"):
            state["clients"] = clients
            write_state(paths, state)
            return
        watchdog.terminate(int(state["pid"]))
        paths.state.unlink(missing_ok=True)


def stop(paths: LocalPaths) -> bool:
    """Stop the server whoever started it. True if one was running."""
    with state_lock(paths):
        state = live_state(paths)
        if not state:
            return False
        watchdog.terminate(int(state["pid"]))
        paths.state.unlink(missing_ok=True)
        return True
