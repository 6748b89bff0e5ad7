"""Persistent profiles: where they live, what names are allowed, and whether another Chrome holds one.

A profile NAME maps to ``<data dir>/profiles/NAME``. Chromium marks a profile in use with a
``SingletonLock`` symlink whose target is ``<hostname>-<pid>``; a lock whose process is alive means another
Chrome has the profile open, and launching on it would hand our command line to that Chrome and hang
until the launch timeout. We check first and fail fast with a typed ``profile_locked`` error.
"""

from __future__ import annotations

import os
import re
import socket
from pathlib import Path

from kite_browser.agent.base.errors import BrowserError, UsageError
from kite_browser.agent.browser.procs import pid_alive

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
LOCK_NAME = "SingletonLock"


class ProfileLockedError(BrowserError):
    """Another running Chrome has the profile directory open."""

    type = "profile_locked"


def profile_dir(data_dir: Path, name: str) -> Path:
    """The directory of profile ``name`` (not created)."""
    if not _NAME.match(name) or ".." in name:
        raise UsageError(
            f"invalid profile name '{name}': use letters, digits, '.', '_' or '-' (at most 64)", profile=name
        )
    return data_dir / "profiles" / name


def lock_owner(directory: Path) -> tuple[str, int] | None:
    """(hostname, pid) from the directory's SingletonLock, or None when there is no readable lock."""
    lock = directory / LOCK_NAME
    try:
        target = os.readlink(lock)
    except OSError:
        return None
    host, sep, pid = target.rpartition("-")
    if not sep or not pid.isdigit():
        return None
    return host, int(pid)


def check_profile_unlocked(directory: Path) -> None:
    """Raise ProfileLockedError when a live Chrome (on this host or another) holds ``directory``."""
    owner = lock_owner(directory)
    if owner is None:
        return
    host, pid = owner
    if host == socket.gethostname() and not pid_alive(pid):
        return  # a stale lock left by a crash: Chromium takes it over itself
    where = f"process {pid}" if host == socket.gethostname() else f"process {pid} on host '{host}'"
    raise ProfileLockedError(
        f"the profile directory {directory} is in use by another Chrome ({where}); close that browser "
        "or choose another profile with --profile NAME",
        path=str(directory),
        pid=pid,
        host=host,
    )
