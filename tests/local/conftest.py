"""Local-model fixtures: the pinned install is shared (installed once into Kite's usual data dir), while each
test gets its own data dir whose ``local/site`` and ``local/models`` link to it, so a test's server never
touches a server that a user (or another test run) started."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from kite_browser.agent.config import BrowserConfig, KiteConfig, load_config
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
    config = KiteConfig(browser=BrowserConfig(data_dir=str(root)))
    yield config
    from kite_browser.agent.llm.local import stop_local_server

    stop_local_server(config)
