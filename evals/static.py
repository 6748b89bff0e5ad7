"""A static file server on 127.0.0.1 for the benches' saved pages and the MiniWoB++ HTML.

Quiet: no request log, and no traceback when the browser drops a connection it no longer needs (a navigation
away while a file is sent: the pipe broke, or the peer reset it). Any other error in a request is printed
as the standard library does.
"""

from __future__ import annotations

import functools
import socket
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Self

DROPPED = (BrokenPipeError, ConnectionResetError)
"""What a request's thread raises when the browser closed the connection under it."""


class _Handler(SimpleHTTPRequestHandler):
    no_store = False

    def log_message(self, format: str, *args: object) -> None:
        pass

    def end_headers(self) -> None:
        if self.no_store:
            self.send_header("Cache-Control", "no-store")
        super().end_headers()


class _NoStoreHandler(_Handler):
    no_store = True


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(
        self, request: socket.socket | tuple[bytes, socket.socket], client_address: object
    ) -> None:
        if isinstance(sys.exc_info()[1], DROPPED):
            return
        super().handle_error(request, client_address)


class StaticServer:
    """``with StaticServer(folder) as s: page.goto(s.base_url + "/page.html")``; ``no_store`` forbids caching."""

    def __init__(self, root: Path, *, no_store: bool = False) -> None:
        self.root = root
        self.no_store = no_store
        self._httpd: _Server | None = None

    def start(self) -> Self:
        if self._httpd is None:
            handler = functools.partial(
                _NoStoreHandler if self.no_store else _Handler, directory=str(self.root)
            )
            self._httpd = _Server(("127.0.0.1", 0), handler)
            threading.Thread(
                target=self._httpd.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True
            ).start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "start the server first"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextmanager
def serve(directory: Path) -> Iterator[str]:
    """The base URL of ``directory`` served while the block runs."""
    with StaticServer(directory) as server:
        yield server.base_url
