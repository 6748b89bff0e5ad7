"""Server test helpers: a config for ``kite serve`` (offline test Chromium, records in a tmp folder), an
in-process API (FastAPI's TestClient, lifespan included) and readers of typed errors and SSE streams."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from agent.config import BrowserConfig, KiteConfig, load_config
from agent.server import ServerState, create_app

TOKEN = "test-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def server_config(browser_config: BrowserConfig, home: Path, **overrides: Any) -> KiteConfig:
    base = {
        "llm.model": "kite/scripted",
        "llm.max_attempts": 1,
        "run.runs_dir": str(home / "runs"),
        "browser.block_external_hosts": True,
        "browser.chromium_path": browser_config.chromium_path,
        "browser.data_dir": browser_config.data_dir,
        "module_settings.artifacts_dir": str(home / "artifacts"),
        "modules": ["chrome"],
    }
    return load_config(overrides={**base, **overrides}, env={})


@pytest.fixture(scope="module")
def static_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A panel folder of our own (the real panel is tested in test_panel*.py)."""
    folder = tmp_path_factory.mktemp("static")
    (folder / "index.html").write_text("<!doctype html><title>Kite</title><p>panel</p>", encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def api(
    browser_config: BrowserConfig, tmp_path_factory: pytest.TempPathFactory, static_dir: Path
) -> Iterator[TestClient]:
    """One in-process server for the test module (modules: chrome), already authorised."""
    home = tmp_path_factory.mktemp("serve")
    state = ServerState(
        server_config(browser_config, home), token=TOKEN, secrets_cli=["shop_pw=hunter2-secret"]
    )
    with TestClient(create_app(state, static_dir=static_dir), headers=AUTH) as client:
        yield client


def typed(response: httpx.Response, status: int, error: str | None = None) -> dict[str, Any]:
    """The typed error of ``response`` (asserting its status, shape and, if given, its kind)."""
    assert response.status_code == status, response.text
    body = response.json()
    assert re.fullmatch(r"[a-z_]+", body["error"]) and body["message"], body
    assert "Traceback" not in response.text
    if error is not None:
        assert body["error"] == error, body
    return body
