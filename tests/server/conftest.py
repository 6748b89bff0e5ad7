"""Server test helpers: a config for ``kite serve`` (offline test Chromium, records in a tmp folder), an
in-process API (FastAPI's TestClient, lifespan included) and readers of typed errors and SSE streams."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from kite_browser.agent.config import BrowserConfig, KiteConfig, load_config
from kite_browser.agent.llm.fakes import Script, register_fake, unregister_fake
from kite_browser.agent.server import ServerState, create_app
from tests.server.panel_harness import page, panel

__all__ = ["page", "panel"]  # the panel tests' fixtures (panel_harness.py), for every module here

TOKEN = "test-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def model() -> Iterator[Any]:
    """``model(name, replies, latency_s)`` registers ``kite/<name>`` for this test."""
    made: list[str] = []

    def make(name: str, replies: list[Any], latency_s: float = 0.0) -> str:
        register_fake(name, Script(replies, latency_s=latency_s, name=name))
        made.append(name)
        return f"kite/{name}"

    yield make
    for name in made:
        unregister_fake(name)


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


@contextlib.contextmanager
def in_process(
    browser_config: BrowserConfig, home: Path, static: Path, **overrides: Any
) -> Iterator[TestClient]:
    """A server in this process (FastAPI's TestClient; lifespan included), already authorised."""
    config = server_config(browser_config, home, **overrides)
    state = ServerState(config, token=TOKEN, secrets_cli=[f"shop_pw={SECRET}"])
    with TestClient(create_app(state, static_dir=static), headers=AUTH) as client:
        yield client


SECRET = "hunter2-secret"


@pytest.fixture(scope="module")
def api(
    browser_config: BrowserConfig, tmp_path_factory: pytest.TempPathFactory, static_dir: Path
) -> Iterator[TestClient]:
    """One in-process server for the test module (modules: chrome)."""
    with in_process(browser_config, tmp_path_factory.mktemp("serve"), static_dir) as client:
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


def sse_events(lines: Iterator[str]) -> Iterator[dict[str, Any]]:
    """Parse a text/event-stream: yields ``{"id": int, "event": str, "data": dict}`` (comments skipped)."""
    current: dict[str, Any] = {}
    for line in lines:
        if not line:
            if "event" in current:
                yield current
            current = {}
        elif line.startswith(":"):
            continue
        else:
            key, _, value = line.partition(": ")
            current[key] = int(value) if key == "id" else json.loads(value) if key == "data" else value


def follow(
    client: TestClient | httpx.Client,
    run_id: str,
    *,
    last_id: int | None = None,
    on_event: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """Every event of a run's SSE stream until it ends (after ``finish``); ``on_event`` sees each as it comes."""
    headers = {"Last-Event-ID": str(last_id)} if last_id is not None else {}
    out = []
    with client.stream("GET", f"/api/runs/{run_id}/events", headers=headers) as response:
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("text/event-stream")
        for event in sse_events(response.iter_lines()):
            out.append(event)
            if on_event is not None:
                on_event(event)
    return out
