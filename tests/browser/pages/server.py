"""A static server for the snapshot fixture pages on 127.0.0.1, plus a second origin on 127.0.0.2
(another site: Chromium puts its frames in a separate process). ``/stall`` never finishes loading."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

PAGES = Path(__file__).parent


class _Handler(SimpleHTTPRequestHandler):
    release: threading.Event

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        if self.path.startswith("/stall"):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(b"<!doctype html><title>Stalled</title><button id='early'>Early button</button>")
            self.wfile.flush()
            self.release.wait(30)
            return
        super().do_GET()


@contextmanager
def serve(
    directory: Path = PAGES, hosts: tuple[str, ...] = ("127.0.0.1", "127.0.0.2")
) -> Iterator[list[str]]:
    """Serve ``directory`` on each host (free ports); yields the base URLs."""
    release = threading.Event()
    handler = type("Handler", (_Handler,), {"release": release})
    servers = [
        ThreadingHTTPServer((h, 0), functools.partial(handler, directory=str(directory))) for h in hosts
    ]
    for srv in servers:
        srv.daemon_threads = True
        threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield [f"http://{h}:{srv.server_address[1]}" for h, srv in zip(hosts, servers, strict=True)]
    finally:
        release.set()
        for srv in servers:
            srv.shutdown()
            srv.server_close()
