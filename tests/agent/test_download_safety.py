"""Downloads a page starts are held to the run's limits, end to end: a real Chromium, the pages and files from a
real local HTTP server, the model behind a fake OpenAI-compatible HTTP server.

* a download past ``browser.max_download_mb`` is stopped (its size announced or not, or never ending), nothing
  of it is kept, and the model is told where it stopped;
* a downloaded file holding a secret's value (plain, split by zero-width spaces, in fullwidth letters) is
  saved with the placeholder in its place; a binary one is deleted; the model is told either way.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kite_browser.agent.run.loop import Agent
from kite_browser.safety.secrets import SecretStore
from tests.fixtures.browser import PagesServer
from tests.fixtures.openai_server import FakeOpenAIServer, Reply

SECRET = "Tr0ub4dor-K1te-77"
CLICK = Reply(tool_calls=[("click", {"selector": "#get"})])
DONE = Reply(tool_calls=[("done", {"success": True, "answer": "downloaded"})])


def files_in(run_dir: str) -> list[Path]:
    return [p for p in Path(run_dir).rglob("*") if p.is_file()]


def steps_of(run_dir: str) -> list[dict[str, Any]]:
    lines = (Path(run_dir) / "steps.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def notices(run_dir: str) -> list[dict[str, Any]]:
    return [
        n
        for step in steps_of(run_dir)
        for outcome in step.get("actions", [])
        for n in outcome["result"]["effects"].get("download_notices", [])
    ]


def told(server: FakeOpenAIServer) -> str:
    """What the model was sent after its first action."""
    return json.dumps(server.requests[1]["messages"], ensure_ascii=False)


def get_page(href: str) -> str:
    return f"<!doctype html><title>Files</title><h1>Your files</h1><a id=get href='{href}'>Get the file</a>"


@pytest.mark.parametrize(
    ("name", "size_mb", "announced"),
    [("archive.bin", 20, True), ("archive-unsized.bin", 20, False), ("endless.bin", None, False)],
    ids=["announced", "unannounced", "endless"],
)
async def test_a_download_past_the_cap_is_stopped_and_the_model_told(
    kite_config,
    ctx_session,
    pages_server: PagesServer,
    openai_server: FakeOpenAIServer,
    name,
    size_mb,
    announced,
):
    href = pages_server.add_download(f"/files/{name}", size_mb, announced=announced)
    start = pages_server.add(f"/files-{name}.html", get_page(href))
    openai_server.push(CLICK, DONE)
    config = kite_config(
        **{"llm.model": "openai/fake", "llm.api_base": openai_server.base_url, "browser.max_download_mb": 1}
    )
    result = await Agent(config, context=ctx_session).run("download the file", start_url=start)
    assert result.stop_reason == "done", result
    [notice] = notices(result.run_dir)
    assert notice["type"] == "download_too_large" and notice["cap_mb"] == 1, notice
    assert "download_too_large" in told(openai_server) and "cap of 1 MB" in told(openai_server)
    if not announced:  # stopped as it arrived, once past the cap (an endless one too)
        assert notice["received_mb"] >= 1, notice
    assert not [p for p in files_in(result.run_dir) if p.suffix == ".bin"], files_in(result.run_dir)


async def test_a_download_within_the_cap_is_saved_whole(
    kite_config, ctx_session, pages_server: PagesServer, openai_server: FakeOpenAIServer
):
    href = pages_server.add_download("/files/small.bin", 0.5)
    openai_server.push(CLICK, DONE)
    config = kite_config(
        **{"llm.model": "openai/fake", "llm.api_base": openai_server.base_url, "browser.max_download_mb": 1}
    )
    start = pages_server.add("/files-small.html", get_page(href))
    result = await Agent(config, context=ctx_session).run("download the file", start_url=start)
    assert notices(result.run_dir) == []
    [saved] = [p for p in files_in(result.run_dir) if p.name == "small.bin"]
    assert saved.stat().st_size == 512 * 1024


ECHO_PAGE = """<!doctype html><title>Receipt</title><h1>Receipt</h1><input id=code>
<button id=get onclick="
const v = document.getElementById('code').value;
const wide = [...v].map((c) => c > ' ' && c <= '~' ? String.fromCharCode(c.charCodeAt(0) + 0xFEE0) : c).join('');
const text = 'code: ' + v + '\\nspaced: ' + [...v].join('\\u200b') + '\\nwide: ' + wide + '\\n';
const a = document.createElement('a'); a.href = window.URL.createObjectURL(new Blob([text], {type: 'text/plain'}));
a.download = 'receipt.txt'; document.body.append(a); a.click();">Get receipt</button>"""


async def test_a_secret_in_a_downloaded_text_file_is_replaced_and_the_model_told(
    kite_config, ctx_session, pages_server: PagesServer, openai_server: FakeOpenAIServer
):
    store = SecretStore.from_sources(kite_config().safety, cli=[f"token={SECRET}"])
    openai_server.push(
        Reply(tool_calls=[("type", {"selector": "#code", "text": "<secret>token</secret>"})]), CLICK, DONE
    )
    config = kite_config(**{"llm.model": "openai/fake", "llm.api_base": openai_server.base_url})
    start = pages_server.add("/receipt-echo.html", ECHO_PAGE)
    result = await Agent(config, context=ctx_session, secrets=store).run("get the receipt", start_url=start)
    assert result.stop_reason == "done", result
    [saved] = [p for p in files_in(result.run_dir) if p.name == "receipt.txt"]
    text = saved.read_text(encoding="utf-8")
    assert text.count("<secret>token</secret>") == 3, text
    assert SECRET not in text and "\u200b" not in text and "Ｔｒ０" not in text, text
    disk = b"\n".join(p.read_bytes() for p in files_in(result.run_dir))
    assert SECRET.encode() not in disk
    [notice] = notices(result.run_dir)
    assert notice["type"] == "download_secret_redacted" and "<secret>token</secret>" in notice["message"]
    after_click = json.dumps(openai_server.requests[2]["messages"], ensure_ascii=False)
    assert "download_secret_redacted" in after_click


async def test_a_binary_download_holding_a_secret_is_withheld(
    kite_config, ctx_session, pages_server: PagesServer, openai_server: FakeOpenAIServer
):
    store = SecretStore.from_sources(kite_config().safety, cli=[f"token={SECRET}"])
    blob = b"\x89PNG\r\n\x1a\n\xff\xfe\x00" + SECRET.encode() + b"\x00\xff\xd8"
    href = pages_server.add(
        "/files/export.bin",
        blob,
        {
            "Content-Type": "application/octet-stream",
            "Content-Disposition": 'attachment; filename="export.bin"',
        },
    )
    openai_server.push(CLICK, DONE)
    config = kite_config(**{"llm.model": "openai/fake", "llm.api_base": openai_server.base_url})
    start = pages_server.add("/files-export.html", get_page(href))
    result = await Agent(config, context=ctx_session, secrets=store).run("export my data", start_url=start)
    assert result.stop_reason == "done", result
    assert not [p for p in files_in(result.run_dir) if p.name == "export.bin"]
    [notice] = notices(result.run_dir)
    assert notice["type"] == "download_withheld", notice
    assert "download_withheld" in told(openai_server)
