"""Fixtures for module tests: a Toolbox on its own event loop, shared by a whole test file.

Hypothesis drives sync test functions, so module tests call tools through ``ToolboxHarness.call`` which runs
the coroutine on the harness's loop; one browser serves every example of a file (keeps the suite fast).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from kite_browser.agent.config import BrowserConfig, KiteConfig, load_config
from kite_browser.agent.modules import Toolbox
from kite_browser.safety.confirm import Confirmer


def module_config(browser_config: BrowserConfig, tmp: Path, **overrides: Any) -> KiteConfig:
    base = {
        "browser.block_external_hosts": True,
        "browser.chromium_path": browser_config.chromium_path,
        "browser.data_dir": browser_config.data_dir,
        "module_settings.artifacts_dir": str(tmp / "artifacts"),
        "browser.js_timeout_ms": 1500,
    }
    return load_config(overrides={**base, **overrides}, env={})


class ToolboxHarness:
    def __init__(self, config: KiteConfig, modules: list[str], confirmer: Confirmer | None = None) -> None:
        self.loop = asyncio.new_event_loop()
        self.toolbox = Toolbox(config, modules=modules, confirmer=confirmer, handle_signals=False)
        self.run(self.toolbox.start())

    def run(self, coro: Any) -> Any:
        return self.loop.run_until_complete(coro)

    def call(self, tool: str, args: Any = None, **kwargs: Any) -> dict[str, Any]:
        return self.run(self.toolbox.call(tool, args, **kwargs))

    def ok(self, tool: str, args: Any = None, **kwargs: Any) -> dict[str, Any]:
        result = self.call(tool, args, **kwargs)
        assert "error" not in result, result
        return result

    def close(self) -> None:
        self.run(self.toolbox.close())
        self.loop.close()


@pytest.fixture(scope="module")
def harness_factory(browser_config: BrowserConfig, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    made: list[ToolboxHarness] = []

    def make(modules: list[str], confirmer: Confirmer | None = None, **overrides: Any) -> ToolboxHarness:
        cfg = module_config(browser_config, tmp_path_factory.mktemp("modules"), **overrides)
        h = ToolboxHarness(cfg, modules, confirmer)
        made.append(h)
        return h

    yield make
    for h in made:
        h.close()


@pytest.fixture(scope="module")
def never_loads() -> Iterator[str]:
    """A URL whose server accepts the connection and never answers (a page that never loads)."""
    stop = threading.Event()

    class Hang(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            stop.wait(30)

        def log_message(self, format: str, *args: object) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hang)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    stop.set()
    server.shutdown()
