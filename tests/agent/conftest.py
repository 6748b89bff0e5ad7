from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent.config import KiteConfig, load_config


@pytest.fixture
def make_config(tmp_path: Path, browser_config: Any):
    def make(**overrides: Any) -> KiteConfig:
        base = {
            "llm.model": "kite/plan",
            "llm.max_attempts": 1,
            "run.runs_dir": str(tmp_path / "runs"),
            "run.screenshots": False,
            "browser.block_external_hosts": True,
            "browser.chromium_path": browser_config.chromium_path,
            "browser.data_dir": browser_config.data_dir,
        }
        return load_config(overrides={**base, **overrides}, env={})

    return make
