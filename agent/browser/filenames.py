"""Names for files a page hands over (downloads): plain, safe, and never overwriting one another."""

from __future__ import annotations

import re
from pathlib import Path

_UNSAFE = re.compile(r"[^\w.\- ()\[\]+,@=]", re.UNICODE)


def safe_filename(name: str) -> str:
    """A download's suggested name reduced to a plain file name (no path, no control characters)."""
    name = name.replace("\\", "/").rsplit("/", 1)[-1].strip().lstrip(".")
    name = _UNSAFE.sub("_", name)[:200]
    return name or "download"


def unique_path(directory: Path, name: str, taken: set[Path]) -> Path:
    """``directory/name``, or ``name (1).ext`` ... when that exists or is being written."""
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        stem, ext = name, ""
    candidate = directory / name
    n = 1
    while candidate.exists() or candidate in taken:
        candidate = directory / (f"{stem} ({n}).{ext}" if ext else f"{stem} ({n})")
        n += 1
    return candidate
