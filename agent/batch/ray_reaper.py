"""Reaper of a local Ray that a Kite driver started: when the driver dies, whatever way (SIGKILL included),
the processes of its Ray go with it.

Ray's head processes (GCS, raylet) already share the driver's fate, and workers die with the raylet, but its
agent processes outlive a SIGKILLed driver by a minute or more. The driver starts this script (stdlib only, a
plain ``python ray_reaper.py DRIVER_PID PID:START ...``) once its workers are up, naming every process
below it then (Ray's processes, the workers, their Playwright drivers and Chromiums). It sleeps on the
driver's pidfd; when the driver is gone it kills those that are still the same processes (same start time,
so a reused pid is never hit), and exits. A driver that ends normally shuts Ray down and stops the reaper.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import time
from pathlib import Path


def _stat(pid: int) -> tuple[int, int] | None:
    """(parent pid, start time in clock ticks), or None when the process is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[1]), int(fields[19])


def descendants(root: int) -> list[tuple[int, int]]:
    """Every process below ``root`` right now, as (pid, start time); empty where /proc does not exist."""
    children: dict[int, list[int]] = {}
    starts: dict[int, int] = {}
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if entry.isdigit() and (stat := _stat(int(entry))) is not None:
                children.setdefault(stat[0], []).append(int(entry))
                starts[int(entry)] = stat[1]
    found, todo = [], list(children.get(root, []))
    while todo:
        pid = todo.pop()
        found.append((pid, starts[pid]))
        todo.extend(children.get(pid, []))
    return found


def _wait_gone(pid: int) -> None:
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    except (OSError, AttributeError):  # no pidfd: poll
        while _stat(pid) is not None:
            time.sleep(0.5)
        return
    try:
        select.select([fd], [], [])
    finally:
        os.close(fd)


def running(targets: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Those of ``targets`` (pid, start time) still running as the same processes (not zombies)."""
    found = []
    for pid, start in targets:
        stat = _stat(pid)
        if stat is not None and stat[1] == start and not _zombie(pid):
            found.append((pid, start))
    return found


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


def reap(targets: list[tuple[int, int]]) -> None:
    for pid, _ in running(targets):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def main(argv: list[str]) -> int:
    driver = int(argv[0])
    targets = [(int(p), int(s)) for p, s in (a.split(":") for a in argv[1:])]
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C to the driver's group is the driver's business
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    _wait_gone(driver)
    reap(targets)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
