"""Fixtures for the eval tests: a config for the oracle, one harness run shared by a module."""

from __future__ import annotations

from pathlib import Path

import pytest

from kite_browser.agent.config import KiteConfig, load_config


@pytest.fixture
def eval_config(chromium_path: str | None, tmp_path: Path, kite_home: Path) -> KiteConfig:
    """Oracle model, headless offline Chromium, run records under tmp_path."""
    return make_config(chromium_path, tmp_path / "runs", kite_home)


def make_config(
    chromium_path: str | None, runs_dir: Path, home: Path, model: str = "kite/oracle"
) -> KiteConfig:
    return load_config(
        None,
        {
            "llm.model": model,
            "browser.chromium_path": chromium_path,
            "browser.block_external_hosts": True,
            "browser.data_dir": str(home),
            "run.runs_dir": str(runs_dir),
        },
        env={},
    )
