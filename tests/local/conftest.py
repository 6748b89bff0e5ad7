"""Local-model fixtures: the pinned install is shared (installed once into Kite's usual data dir), while each
test gets its own data dir whose ``local/site`` and ``local/models`` link to it, so a test's server never
touches a server that a user (or another test run) started.

The server runs on one CPU thread (``llm.local_threads``, also in ``config.yaml`` beside the data dir for the
``kite`` processes a test starts): it shares 2 cores with two other test workers, and there two threads that
wait on each other wrote half as fast as one."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from kite_browser.agent.config import BrowserConfig, KiteConfig, LLMConfig, load_config
from kite_browser.agent.llm.local_install import LocalPaths, install


@pytest.fixture(scope="session")
def shared_install() -> LocalPaths:
    paths = LocalPaths.for_data_dir(load_config().data_dir())
    install(paths)  # a no-op once installed; the first time it downloads ~1.1 GB
    return paths


@pytest.fixture
def local_config(shared_install: LocalPaths, tmp_path: Path) -> Iterator[KiteConfig]:
    root = tmp_path / "kite-home"
    (root / "local").mkdir(parents=True)
    os.symlink(shared_install.site, root / "local" / "site")
    os.symlink(shared_install.gguf.parent, root / "local" / "models")
    (tmp_path / "config.yaml").write_text("llm:\n  local_threads: 1\n", encoding="utf-8")
    config = KiteConfig(browser=BrowserConfig(data_dir=str(root)), llm=LLMConfig(local_threads=1))
    yield config
    from kite_browser.agent.llm.local import stop_local_server

    stop_local_server(config)
