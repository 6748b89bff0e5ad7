"""``kite mcp --http`` on a loopback address other than the literal 127.0.0.1/localhost/::1, without a token:
the SDK's Host/Origin checks hold for the address actually listened on (they were on only for the literal
names, so a page that rebinds its own name to 127.0.0.2 could drive the browser)."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from mcp import Client

from tests.mcp.conftest import start_http

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "rebinder", "version": "1"},
    },
}
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def post(url: str, **headers: str) -> httpx.Response:
    return httpx.post(url, content=json.dumps(INITIALIZE), headers={**HEADERS, **headers}, timeout=30)


@pytest.mark.parametrize("host", ["127.0.0.2", "0:0:0:0:0:0:0:1"])
async def test_a_foreign_host_or_origin_is_refused_on_any_loopback_address(mcp_home: Path, host: str) -> None:
    server = start_http(mcp_home, "--host", host)
    try:
        own = urlsplit(server.url).netloc  # e.g. 127.0.0.2:PORT or [0:0:0:0:0:0:0:1]:PORT
        port = urlsplit(server.url).port
        rebound = post(server.url, host=f"evil.example:{port}", origin=f"http://evil.example:{port}")
        assert rebound.status_code == 421, rebound.text
        foreign_origin = post(server.url, host=own, origin="http://evil.example")
        assert foreign_origin.status_code == 403, foreign_origin.text
        async with Client(server.url) as c:  # the SDK's own client (Host: the address itself) is served
            assert c.protocol_version == "2026-07-28"  # auto mode, no --isolated: the current revision
            assert "navigate" in {t.name for t in (await c.list_tools()).tools}
    finally:
        server.stop()
