"""Where saved pages go: ``<browser_id>_<action>_<YYYYmmdd_HHMMSS>.<ext>`` in the output folder; a second save
in the same second gets ``_2``, ``_3``... (created exclusively, so two saves never overwrite each other)."""

from __future__ import annotations

import tempfile
from datetime import datetime
from pathlib import Path


def default_folder() -> Path:
    return Path(tempfile.gettempdir()) / "playwright_browser"


def folder_for(configured: str | None) -> Path:
    return Path(configured).expanduser() if configured else default_folder()


def save(folder: Path, browser_id: str, action: str, ext: str, data: bytes) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"{browser_id}_{action}_{datetime.now():%Y%m%d_%H%M%S}"
    n = 1
    while True:
        path = folder / (f"{stem}.{ext}" if n == 1 else f"{stem}_{n}.{ext}")
        try:
            with path.open("xb") as fh:
                fh.write(data)
            return path
        except FileExistsError:
            n += 1
