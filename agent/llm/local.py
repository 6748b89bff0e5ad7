"""The bundled local model: Kite works with no API key.

When ``llm.model`` is ``local`` or unset, :func:`configure_local_model` installs the pinned llama.cpp server and
Qwen2.5-Coder-1.5B-Instruct (Q4_K_M) into ``<data_dir>/local/`` on first use, starts the server on a free
loopback port (or reuses the one another Kite started) and returns a config that points litellm at it.
The server stops when the last Kite using it exits, unless it was started with ``kite local start``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel

from kite_browser.agent.config import KiteConfig
from kite_browser.agent.llm import local_server as srv
from kite_browser.agent.llm.local_errors import (
    LocalHashMismatchError,
    LocalInstallError,
    LocalModelError,
    LocalServerError,
    LocalServerTimeoutError,
)
from kite_browser.agent.llm.local_install import (
    LocalPaths,
    install,
    is_installed,
    model_installed,
    server_installed,
    stop_pip,
)
from kite_browser.agent.llm.local_pins import CONTEXT_TOKENS, GGUF_SHA256, GGUF_SIZE, MODEL_ALIAS
from kite_browser.agent.llm.local_progress import rich_progress
from kite_browser.agent.llm.local_watchdog import ServerState

__all__ = [
    "LocalHashMismatchError",
    "LocalInstallError",
    "LocalModelError",
    "LocalServer",
    "LocalServerError",
    "LocalServerTimeoutError",
    "config_for_server",
    "ensure_local_server",
    "local_status",
    "stop_local_server",
]

LITELLM_MODEL = f"openai/{MODEL_ALIAS}"


class LocalServer(BaseModel):
    api_base: str
    """OpenAI-compatible base URL, e.g. http://127.0.0.1:PORT/v1."""
    model: str
    """The litellm model string to call it with."""
    pid: int
    """Process id of the llama-server."""
    port: int
    """Loopback port it listens on."""
    api_key: str
    """The key the server was started with (random per server start; pages in the browser cannot guess it)."""
    owned: bool
    """True if this process started it (and so stops it on exit unless it is pinned)."""


def paths_for(config: KiteConfig) -> LocalPaths:
    return LocalPaths.for_data_dir(config.data_dir())


def _server(state: ServerState, owned: bool) -> LocalServer:
    port = int(state["port"])
    return LocalServer(
        api_base=f"http://127.0.0.1:{port}/v1",
        model=LITELLM_MODEL,
        pid=int(state["pid"]),
        port=port,
        api_key=str(state.get("api_key") or "none"),
        owned=owned,
    )


async def ensure_local_server(
    config: KiteConfig, *, progress: bool = True, pinned: bool = False
) -> LocalServer:
    """Install on first use, then reuse the running healthy server or start one and wait for /health.

    ``pinned`` (``kite local start``): the server outlives this process until ``kite local stop``.
    """
    paths = paths_for(config)
    if not is_installed(paths):
        with rich_progress(enabled=progress) as report:
            try:
                await asyncio.to_thread(install, paths, report)
            except asyncio.CancelledError:  # Ctrl-C: no pip outlives Kite, the thread ends with it
                stop_pip()
                raise
    with srv.state_lock(paths):
        state = srv.live_state(paths)
        owned = state is None
        if state is None:
            state = srv.spawn(paths, pinned=pinned, threads=config.llm.local_threads)
        elif pinned:
            state["pinned"] = True
            srv.write_state(paths, state)
        if not pinned:
            srv.add_client(paths, state)
    try:
        await srv.wait_healthy(paths, int(state["pid"]), int(state["port"]))
    except LocalServerError:
        if owned:
            srv.stop(paths)
        raise
    return _server(state, owned)


def stop_local_server(config: KiteConfig) -> bool:
    """Stop the local server (whoever started it). True if one was running."""
    return srv.stop(paths_for(config))


def local_status(config: KiteConfig) -> dict[str, Any]:
    """Installed?, model path and size, and the server's pid/port/health/clients if one runs."""
    paths = paths_for(config)
    state = srv.live_state(paths)
    status: dict[str, Any] = {
        "installed": is_installed(paths),
        "server_installed": server_installed(paths),
        "model_installed": model_installed(paths),
        "model_path": str(paths.gguf),
        "model_size": paths.gguf.stat().st_size if paths.gguf.exists() else None,
        "model_sha256": GGUF_SHA256,
        "expected_size": GGUF_SIZE,
        "log": str(paths.log),
        "running": state is not None,
    }
    if state:
        status.update(
            pid=state["pid"], port=state["port"], pinned=bool(state.get("pinned")),
            clients=state.get("clients", []), healthy=srv.health(int(state["port"])),
            api_base=f"http://127.0.0.1:{state['port']}/v1", model=LITELLM_MODEL,
        )  # fmt: skip
    return status


def config_for_server(config: KiteConfig, server: LocalServer) -> KiteConfig:
    """A copy of ``config`` whose llm section calls ``server``: model string, api_base, a dummy key, and the
    local model's capabilities (no function calling, no vision, an 8k window) unless the user forced them; the
    page's token budget at most ``llm.local_page_tokens``."""
    llm = config.llm.model_copy(
        update={
            "model": server.model,
            "api_base": server.api_base,
            "api_key": server.api_key,
            "function_calling": False if config.llm.function_calling is None else config.llm.function_calling,
            "vision": False if config.llm.vision is None else config.llm.vision,
        }
    )
    budget = config.agent.max_input_tokens or CONTEXT_TOKENS - config.llm.max_output_tokens
    agent = config.agent.model_copy(update={"max_input_tokens": budget})
    page = min(config.snapshot.token_budget, config.llm.local_page_tokens)
    snapshot = config.snapshot.model_copy(update={"token_budget": page})
    return config.model_copy(update={"llm": llm, "agent": agent, "snapshot": snapshot})
