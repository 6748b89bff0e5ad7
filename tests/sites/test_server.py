"""The server itself: cookies and per-visitor state, isolation, reset, prompt shutdown, the CLI."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, expect

from kite_browser.evals.sites import SitesServer
from tests.sites.helpers import state

ROOT = Path(__file__).resolve().parents[2]


def test_api_state_and_reset_over_plain_http(sites: SitesServer) -> None:
    with urllib.request.urlopen(sites.url("/api/state")) as resp:
        cookie = resp.headers["Set-Cookie"]
        data = json.loads(resp.read())
    assert cookie.startswith("kite_sid=") and "Max-Age=31536000" in cookie
    sid = cookie.split(";")[0].split("=", 1)[1]
    assert data["sid"] == sid and data["cart"] == [] and "demo@kite.test" in data["accounts"]
    post = urllib.request.Request(
        sites.url("/api/event"),
        data=b'{"name": "ping"}',
        headers={"Cookie": f"kite_sid={sid}", "Content-Type": "application/json"},
    )
    urllib.request.urlopen(post).close()
    assert [e["name"] for e in sites.state_for(sid)["events"]] == ["ping"]
    urllib.request.urlopen(
        urllib.request.Request(sites.url("/api/reset"), data=b"", headers={"Cookie": f"kite_sid={sid}"})
    ).close()
    assert sites.state_for(sid)["events"] == []
    assert sid in sites.states()


async def test_two_contexts_never_share_state(pw_browser: Browser, sites: SitesServer) -> None:
    one, two = await pw_browser.new_context(), await pw_browser.new_context()
    try:
        p1, p2 = await one.new_page(), await two.new_page()
        await p1.goto(sites.url("/shop/product/black-backpack"))
        await p1.click("#add-to-cart")
        await expect(p1.locator("#cart-count")).to_have_text("1")
        await p2.goto(sites.url("/shop/cart"))
        await expect(p2.locator("#cart-empty")).to_be_visible()
        s1, s2 = await state(p1, sites), await state(p2, sites)
        assert s1["sid"] != s2["sid"]
        assert s1["cart_count"] == 1 and s2["cart_count"] == 0
        assert sites.state_for(s1["sid"])["cart"][0]["product_id"] == "black-backpack"
    finally:
        await one.close()
        await two.close()


async def test_shutdown_is_prompt_with_a_hanging_page_open(page: Page) -> None:
    server = SitesServer().start()
    port = server.port
    async with page.expect_request(lambda r: r.url.endswith("/test/hang-resource")):
        await page.goto(server.url("/test/hang.html"), wait_until="domcontentloaded")
    await expect(page.locator("#title")).to_be_visible()
    assert await page.evaluate("document.readyState") != "complete"
    await page.click("#still-works")
    await expect(page.locator("#result")).to_have_text("Button works")

    started = time.monotonic()
    await asyncio.to_thread(server.stop)
    assert time.monotonic() - started < 3
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
        pass


def test_url_helpers_and_not_started() -> None:
    server = SitesServer()
    with pytest.raises(RuntimeError):
        _ = server.base_url
    with server:
        assert server.url("shop/") == server.base_url + "/shop/"
        assert server.cross_url("/frames/cross.html").startswith(server.cross_origin_url)
        assert server.base_url.startswith("http://127.0.0.1:")


def test_cli_serves_until_ctrl_c(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "kite_browser.agent", "sites", "serve", "--port", "0"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first = proc.stdout.readline() if proc.stdout else ""
        second = proc.stdout.readline() if proc.stdout else ""
        assert first.startswith("Kite sites:") and second.startswith("Cross origin:")
        url = first.split()[-1]
        with urllib.request.urlopen(url + "shop/", timeout=10) as resp:
            assert b"Kite Shop" in resp.read()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
        assert "stopped" in out
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
    assert proc.returncode == 0
    assert "Traceback" not in err
    assert err == ""  # quiet: no per-request log lines


def test_cli_serves_a_page_variant(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "kite_browser.agent", "sites", "serve", "--port", "0", "--variant", "2"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        lines = [proc.stdout.readline() if proc.stdout else "" for _ in range(3)]
        assert lines[2].strip() == "Page variant: 2", lines
        url = lines[0].split()[-1]
        with urllib.request.urlopen(url + "shop/product/classic-blue-mug", timeout=10) as resp:
            page = resp.read()
        assert b">Add to basket</button>" in page and b'id="add-to-cart"' not in page
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
    assert proc.returncode == 0
    bad = subprocess.run(
        [sys.executable, "-m", "kite_browser.agent", "sites", "serve", "--variant", "7"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "--variant" in bad.stderr


def test_stop_cuts_keep_alive_connections() -> None:
    import http.client

    server = SitesServer().start()
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    conn.request("GET", "/api/state")
    first = conn.getresponse()
    assert first.status == 200
    first.read()
    server.stop()
    with pytest.raises((OSError, http.client.HTTPException)):
        conn.request("GET", "/api/state")
        conn.getresponse()
    conn.close()
