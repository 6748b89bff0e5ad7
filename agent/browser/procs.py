"""Small /proc helpers (Linux) to find and watch Chromium processes without psutil.

Used by the profile-lock check (is the pid in a SingletonLock alive?) and by the tests that prove no
Chromium outlives a session. A process is identified by ``(pid, starttime)`` so that a reused pid is
never mistaken for the original. On systems without /proc the tree helpers return nothing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")


@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    starttime: int
    state: str
    cmdline: str

    @property
    def is_chromium(self) -> bool:
        exe = self.cmdline.split(" ", 1)[0]
        name = os.path.basename(exe).lower()
        return "chrom" in name or name in {"chrome", "headless_shell"}


def read_proc(pid: int) -> Proc | None:
    """The process ``pid``, or None when it does not exist (or is a zombie)."""
    try:
        stat = (PROC / str(pid) / "stat").read_text()
        raw = (PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return None
    # Fields after "(comm)"; comm itself may contain spaces and parentheses.
    rest = stat[stat.rindex(")") + 2 :].split()
    state = rest[0]
    if state in {"Z", "X"}:
        return None
    cmdline = raw.replace(b"\0", b" ").decode(errors="replace").strip()
    return Proc(pid=pid, ppid=int(rest[1]), starttime=int(rest[19]), state=state, cmdline=cmdline)


def all_procs() -> list[Proc]:
    if not PROC.is_dir():
        return []
    procs = []
    for entry in os.listdir(PROC):
        if entry.isdigit():
            proc = read_proc(int(entry))
            if proc is not None:
                procs.append(proc)
    return procs


def descendants(root: int) -> list[Proc]:
    """Every live process below ``root`` (children, grandchildren ...)."""
    children: dict[int, list[Proc]] = {}
    for proc in all_procs():
        children.setdefault(proc.ppid, []).append(proc)
    out: list[Proc] = []
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child.pid)
    return out


def chromium_descendants(root: int) -> list[Proc]:
    return [p for p in descendants(root) if p.is_chromium]


def still_alive(procs: list[Proc]) -> list[Proc]:
    """Those of ``procs`` that still run (same pid and same start time)."""
    alive = []
    for proc in procs:
        now = read_proc(proc.pid)
        if now is not None and now.starttime == proc.starttime:
            alive.append(now)
    return alive


def pid_alive(pid: int) -> bool:
    """True when a (non-zombie) process ``pid`` exists on this machine."""
    if pid <= 0:
        return False
    if PROC.is_dir():
        return read_proc(pid) is not None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def with_env(name: str, value: str) -> list[Proc]:
    """Live processes whose environment has ``name=value``: finds a marked process's whole family, even
    the ones that daemonized away from the tree (Chromium's crashpad handler double-forks to init)."""
    needle = f"{name}={value}".encode()
    found = []
    for proc in all_procs():
        try:
            env = (PROC / str(proc.pid) / "environ").read_bytes()
        except OSError:
            continue
        if needle in env.split(b"\0"):
            found.append(proc)
    return found
