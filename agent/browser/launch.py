"""Launch details: Chromium flags from config, the attach pre-flight, and SIGTERM/SIGHUP clean-up."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from playwright.async_api import ViewportSize

from kite_browser.agent.base.errors import BrowserError, UsageError
from kite_browser.agent.config import BrowserConfig

if TYPE_CHECKING:
    from kite_browser.agent.browser.session import BrowserSession

OFFLINE_RESOLVER = "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE 127.0.0.2"
"""Nothing resolves but loopback: 127.0.0.1 and 127.0.0.2 (the second loopback host the domain-policy tests use)."""
ATTACH_PROBE_CAP_S = 5.0


class AttachFailedError(BrowserError):
    """The CDP endpoint given with --attach / browser.attach did not answer as a Chrome."""

    type = "attach_failed"


class LaunchFailedError(BrowserError):
    type = "launch_failed"


def chromium_args(config: BrowserConfig) -> list[str]:
    """The extra Chromium flags for a launch: config.args plus the offline resolver when asked."""
    args = list(config.args)
    if config.block_external_hosts and not any(a.startswith("--host-resolver-rules") for a in args):
        args.append(OFFLINE_RESOLVER)
    return args


def viewport(config: BrowserConfig) -> ViewportSize:
    return {"width": config.viewport_width, "height": config.viewport_height}


def _probe_http(endpoint: str, timeout_s: float) -> None:
    url = endpoint.rstrip("/") + "/json/version"
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as resp:
            data = json.loads(resp.read().decode() or "{}")
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise AttachFailedError(
            f"nothing answers as a Chrome DevTools endpoint at {endpoint} ({reason}); start Chrome with "
            "--remote-debugging-port=9222 and attach to http://127.0.0.1:9222",
            endpoint=endpoint,
        ) from exc
    if not isinstance(data, dict) or "webSocketDebuggerUrl" not in data:
        raise AttachFailedError(
            f"{endpoint} answered, but not as a Chrome DevTools endpoint (no webSocketDebuggerUrl)",
            endpoint=endpoint,
        )


def _probe_tcp(endpoint: str, timeout_s: float) -> None:
    parts = urlsplit(endpoint)
    port = parts.port or (443 if parts.scheme == "wss" else 80)
    try:
        with socket.create_connection((parts.hostname or "127.0.0.1", port), timeout=timeout_s):
            pass
    except OSError as exc:
        raise AttachFailedError(
            f"cannot reach the DevTools endpoint {endpoint}: {exc.strerror or exc}", endpoint=endpoint
        ) from exc


async def probe_attach(endpoint: str, timeout_ms: int) -> None:
    """Fail fast (a few seconds at most) when the attach endpoint is not a live Chrome."""
    scheme = urlsplit(endpoint).scheme
    if scheme not in {"http", "https", "ws", "wss"}:
        raise UsageError(
            f"invalid attach endpoint '{endpoint}': use http://host:port or ws://host:port/devtools/browser/...",
            endpoint=endpoint,
        )
    timeout_s = min(ATTACH_PROBE_CAP_S, timeout_ms / 1000)
    probe = _probe_http if scheme in {"http", "https"} else _probe_tcp
    await asyncio.to_thread(probe, endpoint, timeout_s)


def install_signal_cleanup(
    session: BrowserSession,
    signals: tuple[signal.Signals, ...] = (signal.SIGTERM, signal.SIGHUP),
    close_timeout_s: float = 10.0,
) -> Callable[[], None]:
    """On SIGTERM/SIGHUP, close ``session`` gracefully, then die of the same signal.

    Without it, a SIGTERM kills Python at once and Playwright's driver (whose stdin then closes) kills
    Chromium itself; with it, the profile is closed properly first (cookies flushed, lock released,
    temporary folders removed). Must be called from the running event loop. Returns an uninstaller.
    """
    loop = asyncio.get_running_loop()

    async def shutdown(sig: signal.Signals) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(session.close(), close_timeout_s)
        uninstall()
        os.kill(os.getpid(), sig)

    tasks: set[asyncio.Task[None]] = set()

    def handler(sig: signal.Signals) -> None:
        task = loop.create_task(shutdown(sig))
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    installed = []
    for sig in signals:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, handler, sig)
            installed.append(sig)

    def uninstall() -> None:
        for sig in installed:
            with contextlib.suppress(Exception):
                loop.remove_signal_handler(sig)
            signal.signal(sig, signal.SIG_DFL)
        installed.clear()

    return uninstall
