"""The benches' and MiniWoB++'s static server: a browser dropping a connection mid-file prints nothing, any
other error in a request still prints its traceback. A real server, a real socket that resets the
connection; the request's end (``shutdown_request``, after any error was reported) is awaited."""

from __future__ import annotations

import http.client
import socket
import struct
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kite_browser.evals import static
from kite_browser.evals.static import StaticServer


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[StaticServer, threading.Event]]:
    (tmp_path / "big.bin").write_bytes(b"x" * (32 << 20))  # far more than the socket buffers hold
    ended = threading.Event()
    real = static._Server.shutdown_request

    def shutdown_request(self: Any, request: Any) -> None:
        real(self, request)
        ended.set()

    monkeypatch.setattr(static._Server, "shutdown_request", shutdown_request)
    with StaticServer(tmp_path) as server:
        yield server, ended


def _port(server: StaticServer) -> int:
    return int(server.base_url.rsplit(":", 1)[1])


def test_a_connection_dropped_mid_file_prints_nothing(
    served: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    server, ended = served
    with socket.create_connection(("127.0.0.1", _port(server))) as sock:
        sock.sendall(b"GET /big.bin HTTP/1.1\r\nHost: bench\r\n\r\n")
        assert sock.recv(64).startswith(b"HTTP/1.0 200"), "the server did not start sending"
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close = reset
    assert ended.wait(60), "the request never ended"
    err = capsys.readouterr().err
    assert "Traceback" not in err and "Error" not in err, err


def test_any_other_error_in_a_request_is_still_printed(
    served: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    server, ended = served

    def broken(self: Any) -> None:
        raise ValueError("a bug in the handler")

    monkeypatch.setattr(static._Handler, "do_GET", broken)
    conn = http.client.HTTPConnection("127.0.0.1", _port(server), timeout=60)
    with pytest.raises(http.client.RemoteDisconnected):
        conn.request("GET", "/big.bin")
        conn.getresponse()
    conn.close()
    assert ended.wait(60), "the request never ended"
    err = capsys.readouterr().err
    assert "Traceback" in err and "ValueError: a bug in the handler" in err, err
