"""A ``kite mcp`` session saved as a workflow: the client searches the shop through the SDK client, ``kite
workflow save`` turns the session's record into a workflow (each action with its target's fingerprint), and
``kite replay`` replays it with another value and no model."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from mcp import Client

from kite_browser.agent.mcp.app import kite_mcp
from kite_browser.evals.sites import SitesServer
from tests.kite_cli import run_kite
from tests.mcp.conftest import ref, text_of

pytestmark = pytest.mark.timeout(600)


async def test_an_mcp_session_is_saved_as_a_workflow_and_replays(
    kite_config: Any, sites: SitesServer, tmp_path: Path
) -> None:
    async with kite_mcp(kite_config()) as kite, Client(kite.server, mode="legacy") as c:
        home = text_of(await c.call_tool("navigate", {"url": sites.url("/shop/")}))
        await c.call_tool("snapshot", {})  # observing is no step
        typed = await c.call_tool("type", {"ref": ref(home, "input", "Search"), "text": "mug"})
        assert not typed.is_error, text_of(typed)
        found = text_of(await c.call_tool("press_key", {"key": "Enter"}))
        assert "q=mug" in found, found
        record_dir = kite.record.run_dir
    wf_path = tmp_path / "search.yaml"
    saved = await asyncio.to_thread(
        run_kite, "workflow", "save", str(record_dir), str(wf_path), "--task", "search the shop"
    )
    assert saved.returncode == 0, saved.stderr
    wf = yaml.safe_load(wf_path.read_text())
    assert wf["start_url"] == sites.url("/shop/") and wf["task"] == "search the shop"
    assert [s["action"] for s in wf["steps"]] == ["type", "pressKey"], wf["steps"]
    assert wf["steps"][0]["target"]["attrs"]["id"] == "search" and wf["variables"] == {
        "search": {"default": "mug"}
    }

    env = {"KITE_RUNS_DIR": str(tmp_path / "runs"), "KITE_HOME": str(tmp_path / "home")}
    replay = await asyncio.to_thread(
        run_kite, "replay", str(wf_path), "--var", "search=bag", "--json", env=env
    )
    assert replay.returncode == 0, replay.stderr
    out = json.loads(replay.stdout.strip().splitlines()[-1])
    assert out["success"] and out["model_calls"] == 0 and out["replayed"] is True, out
    lines = await asyncio.to_thread(Path(out["run_dir"], "steps.jsonl").read_text)
    steps = [json.loads(x) for x in lines.splitlines()]
    urls = [a["result"]["effects"].get("url_after") or "" for s in steps for a in s.get("actions") or []]
    assert any("q=bag" in u for u in urls), urls


async def test_a_session_with_no_page_opened_is_not_saved(kite_config: Any, tmp_path: Path) -> None:
    async with kite_mcp(kite_config()) as kite, Client(kite.server, mode="legacy") as c:
        await c.call_tool("tabs", {"action": "list"})
        record_dir = kite.record.run_dir
    saved = await asyncio.to_thread(run_kite, "workflow", "save", str(record_dir), str(tmp_path / "x.yaml"))
    assert saved.returncode == 2 and saved.stderr.count("\n") == 1, saved.stderr
    assert "the session opened no page with navigate" in saved.stderr
    assert not (tmp_path / "x.yaml").exists()
