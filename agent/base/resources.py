"""Locate the bundled ``prompts/`` and ``config/`` folders from a checkout and from an installed wheel.

In a wheel they are force-included as ``agent/_resources/{prompts,config}``; in a checkout they sit at the
repository root next to ``agent/``.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PKG = Path(__file__).resolve().parents[1]  # agent/, above base/


@cache
def resource_dir(name: str) -> Path:
    """Return the folder of a bundled resource (``"prompts"`` or ``"config"``)."""
    for candidate in (_PKG / "_resources" / name, _PKG.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"Kite's bundled '{name}/' folder is missing (looked in {_PKG / '_resources'})")


def resource_path(name: str, *parts: str) -> Path:
    return resource_dir(name).joinpath(*parts)
