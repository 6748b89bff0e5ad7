from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from kite_browser.agent.config import KiteConfig


@pytest.fixture
def make_config(kite_config: Callable[..., KiteConfig]) -> Callable[..., KiteConfig]:
    """The loop tests' config: the plan-following fake model unless a test names another."""

    def make(**overrides: Any) -> KiteConfig:
        return kite_config(**{"llm.model": "kite/plan", **overrides})

    return make


@pytest.fixture
def short_tmp() -> Iterator[str]:
    """A short temporary folder (``TMPDIR`` for a kite subprocess: Unix socket paths have a length limit)."""
    path = tempfile.mkdtemp(prefix="kq-")
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
