"""``kite mcp`` over stdio, driven by the MCP SDK's own client against the bundled shop."""

from __future__ import annotations

import json
import re
import subprocess
import uuid
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from kite_browser.agent.browser.procs import with_env
from kite_browser.evals.sites import SitesServer
from tests.mcp.conftest import MARK, records, ref, server_argv, server_env, text_of, wait_until
from tests.mcp.scenarios import (
    Answers,
    bad_input,
    check_tools,
    confirmations,
    shop_task,
    structured_results,
)


def _stdio(home: Path, *flags: str) -> StdioServerParameters:
    argv = server_argv(home, *flags)
    return StdioServerParameters(command=argv[0], args=argv[1:], env=server_env(uuid.uuid4().hex))


async def test_stdio_task_stale_ref_confirmations_and_bad_input(mcp_home: Path, sites: SitesServer) -> None:
    """An SDK client in its default mode: it probes server/discover and speaks 2026-07-28."""
    answers = Answers(True, False)
    async with Client(
        _stdio(mcp_home, "--blocked-domain", "blocked.test", "--secret", "code=hunter2"),
        elicitation_callback=answers,
    ) as c:
        assert c.protocol_version == "2026-07-28"
        await check_tools(c)
        total = await shop_task(c, sites)
        assert total == "$7.25"
        await confirmations(c, answers)
        await bad_input(c)
        await structured_results(c, sites)
    carts = [s["cart"] for s in sites.states().values()]
    assert any([i["product_id"] for i in cart] == ["sky-blue-espresso-mug"] for cart in carts)
    decisions = [r for r in records(mcp_home) if r["event"] == "decision"]
    assert [(d["tool"], d["allowed"]) for d in decisions[-3:]] == [
        ("evaluate", True),
        ("evaluate", False),
        ("navigate", False),
    ]
    assert decisions[-1]["level"] == "block" and decisions[-3]["answer"] == "approved by the user"
    rounds = [r["tool"] for r in records(mcp_home, last=True) if r["event"] == "input_required"]
    assert rounds == ["evaluate", "evaluate"]  # 2026-07-28: each question was an InputRequiredResult


async def test_stdio_handshake_era_client_is_asked_by_server_request(
    mcp_home: Path, sites: SitesServer
) -> None:
    answers = Answers(True, False)
    secret = _stdio(mcp_home, "--secret", "code=hunter2")
    async with Client(secret, mode="legacy", elicitation_callback=answers) as c:
        assert c.protocol_version == "2025-11-25"
        page = text_of(await c.call_tool("navigate", {"url": sites.url("/account/login")}))
        await confirmations(c, answers, "/account/login")
        register = text_of(await c.call_tool("click", {"ref": ref(page, "link", "Register")}))
        assert "\nPage: Register — " in register and "/account/register" in register
        opened = text_of(await c.call_tool("tabs", {"action": "new", "url": sites.url("/forms/")}))
        assert re.search(r"^1\* 'Kite forms", opened, re.M) and "\nPage: Kite forms" in opened
        assert "Tabs:" not in opened  # the list is given once
        closed = text_of(await c.call_tool("tabs", {"action": "close", "index": 1}))
        assert re.search(r"^0\* 'Register'", closed, re.M) and "Kite forms" not in closed
        await structured_results(c, sites)
    run = records(mcp_home, last=True)  # this server's record: asked mid-call, no input rounds
    decisions = [(r["tool"], r["allowed"]) for r in run if r["event"] == "decision"]
    assert decisions == [("evaluate", True), ("evaluate", False)]
    assert not [r for r in run if r["event"] == "input_required"]


def _rpc(proc: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()


def _answer(proc: subprocess.Popen[bytes]) -> dict[str, Any]:
    assert proc.stdout is not None
    return json.loads(proc.stdout.readline())


@pytest.mark.slow
def test_closed_browser_is_restarted_and_a_vanished_client_leaves_no_chromium(
    mcp_home: Path, sites: SitesServer
) -> None:
    """The browser dies under the server: the next call starts it again and says so. Then the client
    disappears mid-call (its pipes close): the server exits and no Chromium of it is left."""
    mark = uuid.uuid4().hex
    proc = subprocess.Popen(
        server_argv(mcp_home), stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=server_env(mark)
    )
    try:
        init = {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"},
        }
        _rpc(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
        assert _answer(proc)["result"]["serverInfo"]["name"] == "kite"
        _rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        call = {"name": "navigate", "arguments": {"url": sites.url("/dynamic/")}}
        _rpc(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
        assert not _answer(proc)["result"].get("isError")
        chromium = [p for p in with_env(MARK, mark) if p.is_chromium]
        assert chromium
        for p in chromium:
            subprocess.run(["kill", "-9", str(p.pid)], check=False)
        _rpc(proc, {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call})
        again = _answer(proc)["result"]
        assert not again.get("isError")
        assert "started it again" in again["content"][0]["text"]
        wait = {"name": "wait_for", "arguments": {"text": "never shown", "timeout_ms": 60000}}
        _rpc(proc, {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": wait})
        wait_until(lambda: len([p for p in with_env(MARK, mark) if p.is_chromium]) > 0, 10, "a live browser")
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.close()
        proc.stdout.close()
        proc.wait(45)  # litellm's exit hooks hold a finished process for a few seconds
        assert proc.returncode == 0
        wait_until(lambda: not with_env(MARK, mark), 10, "every process of the server to exit")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


def test_a_2024_11_05_client_is_served_text_only(mcp_home: Path) -> None:
    """The oldest handshake version: negotiated as asked, tools listed and called, no ``outputSchema`` or
    ``structuredContent`` (that version has neither: the client would only pay their tokens)."""
    proc = subprocess.Popen(
        server_argv(mcp_home), stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=server_env(uuid.uuid4().hex)
    )
    try:
        init = {
            "protocolVersion": "2024-11-05",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"},
        }
        _rpc(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
        assert _answer(proc)["result"]["protocolVersion"] == "2024-11-05"
        _rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _rpc(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        tools = _answer(proc)["result"]["tools"]
        assert "snapshot" in [t["name"] for t in tools] and not [t for t in tools if "outputSchema" in t]
        _rpc(proc, {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "tabs"}})
        listed = _answer(proc)["result"]
        assert "about:blank" in listed["content"][0]["text"] and "structuredContent" not in listed
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(60)
