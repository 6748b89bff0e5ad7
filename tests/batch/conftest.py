"""Batch fixtures: task files written on the fly, jobs built against the bundled sites, a config file for the
``kite batch`` subprocess, and the ``kite/steps`` fake (tests/batch/fakes.py)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from kite_browser.agent.batch.jobs import Job, build_jobs, read_task_file
from kite_browser.agent.config import KiteConfig
from tests.batch.fakes import StepsModel, register_steps


def write_tasks(path: Path, tasks: list[dict[str, Any]], **top: Any) -> Path:
    """A task file: JSONL when ``path`` ends with .jsonl, else YAML (with ``top`` keys such as defaults)."""
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(t) + "\n" for t in tasks), encoding="utf-8")
    else:
        path.write_text(yaml.safe_dump({**top, "tasks": tasks}, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture
def steps_model() -> StepsModel:
    return register_steps(latency_s=0.0)


@pytest.fixture
def base_config(kite_config: Callable[..., KiteConfig]) -> Callable[..., KiteConfig]:
    def make(**overrides: Any) -> KiteConfig:
        return kite_config(**{"llm.model": "kite/steps", **overrides})

    return make


@pytest.fixture
def make_jobs(
    tmp_path: Path, sites: Any, base_config: Callable[..., KiteConfig]
) -> Callable[..., Awaitable[list[Job]]]:
    async def make(tasks: list[dict[str, Any]], *, cli_secrets: tuple[str, ...] = (), **config: Any):
        tf = read_task_file(write_tasks(tmp_path / "tasks.yaml", tasks))
        values = {"sites": sites.url("/").rstrip("/"), "cross": sites.cross_origin_url.rstrip("/")}
        return await build_jobs(tf, base_config(**config), placeholders=values, cli_secrets=cli_secrets)

    return make


@pytest.fixture
def cli_config(tmp_path: Path, browser_config: Any) -> Path:
    """A --config file for ``kite batch`` subprocesses: offline, no screenshots, one model attempt."""
    path = tmp_path / "kite.yaml"
    data = {
        "browser": {
            "chromium_path": browser_config.chromium_path,
            "block_external_hosts": True,
            "data_dir": browser_config.data_dir,
        },
        "run": {"screenshots": False},
        "llm": {"max_attempts": 1},
    }
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path
