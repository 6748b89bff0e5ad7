"""An app served on loopback from a background thread with its own event loop (tests, benchmarks, notebooks):

with ServerThread(create_app(state)) as base_url:   # e.g. http://127.0.0.1:38211
    httpx.get(f"{base_url}/api/modules", headers=...)
"""

from __future__ import annotations

import asyncio
import threading
from types import TracebackType

from starlette.types import ASGIApp

from kite_browser.agent.base.httpserve import serve_asgi


class ServerThread:
    def __init__(self, app: ASGIApp, host: str = "127.0.0.1", port: int = 0) -> None:
        self.app, self.host, self.port = app, host, port
        self.loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._task: asyncio.Task[None] | None = None
        self._thread: threading.Thread | None = None
        self.base_url = ""

    def _started(self, bound: int) -> None:
        self.base_url = f"http://{self.host}:{bound}"
        self._ready.set()

    def _run(self) -> None:
        self._task = self.loop.create_task(serve_asgi(self.app, self.host, self.port, ready=self._started))
        try:
            self.loop.run_until_complete(self._task)
        except BaseException:  # the start failed, or the stop cancelled it
            pass
        finally:
            self._ready.set()

    def start(self, timeout_s: float = 60.0) -> str:
        self._thread = threading.Thread(target=self._run, name="kite-serve", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout_s) or not self.base_url:
            raise RuntimeError("the server did not start")
        return self.base_url

    def stop(self, timeout_s: float = 30.0) -> None:
        if self._task is not None and not self._task.done():
            self.loop.call_soon_threadsafe(self._task.cancel)
        if self._thread is not None:
            self._thread.join(timeout_s)
        if not self.loop.is_closed() and not self.loop.is_running():
            self.loop.close()

    def __enter__(self) -> str:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
