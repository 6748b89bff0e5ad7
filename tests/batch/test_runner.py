"""The batch runner in-process: real headless Chromium on the bundled sites, only the model faked."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from pathlib import Path
from typing import Any

from kite_browser.agent.batch.local import LocalBackend
from kite_browser.agent.batch.results import read_results
from kite_browser.agent.batch.runner import BatchRunner
from kite_browser.agent.browser.procs import descendants
from kite_browser.agent.browser.session import BrowserSession
from kite_browser.agent.llm.fakes import FakeReply, register_fake
from tests.batch.fakes import register_steps


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()]


async def test_n_at_once_with_checks_and_batch_safety(make_jobs, browser_session, tmp_path: Path) -> None:
    model = register_steps(latency_s=0.1, rendezvous=3)  # 3 tasks must be in a model call at the same time
    jobs = await make_jobs(
        [
            {
                "id": "checked",
                "task": "alpha [steps=2]",
                "start_url": "{sites}/shop/",
                "check": {"url": "/shop/$"},
            },
            {"id": "claim-only", "task": "beta", "start_url": "{sites}/forms/"},
            {"id": "claims-failure", "task": "gamma [claim=false]", "start_url": "{sites}/shop/"},
            {
                "id": "check-fails",
                "task": "delta",
                "start_url": "{sites}/forms/",
                "check": {"text": "Nowhere"},
            },
            {
                "id": "js-denied",
                "task": "epsilon [js]",
                "start_url": "{sites}/forms/",
                "check": {"js": "document.title === 'js ran'"},
            },
            {
                "id": "js-approved",
                "task": "zeta [js]",
                "start_url": "{sites}/forms/",
                "approve": ["executeJS"],
                "check": {"js": "document.title === 'js ran'", "confirmed": "executeJS"},
            },
        ]
    )
    out = tmp_path / "results.jsonl"
    seen_active: list[int] = []
    reported: list[str] = []
    backend = LocalBackend(jobs[0].config.browser, concurrency=3, browser=browser_session)
    runner = BatchRunner(jobs, backend, out=out)
    runner.on_start = lambda job: seen_active.append(runner.active)
    runner.on_result = lambda job, result: reported.append(result.id)
    results = await runner.run()

    assert max(seen_active) == 3 and model.max_in_flight == 3, (seen_active, model.max_in_flight)
    rows = {r["id"]: r for r in lines(out)}
    assert [r["id"] for r in lines(out)] == reported == [r.id for r in results]
    assert set(rows) == {j.id for j in jobs}
    ok = {i for i, r in rows.items() if r["success"]}
    assert ok == {"checked", "claim-only", "js-approved"}, rows
    assert rows["check-fails"]["claimed_success"] and not rows["check-fails"]["success"]
    assert rows["check-fails"]["check"]["failures"] == ["text: 'Nowhere' not on the page"]
    assert rows["claims-failure"]["check"] is None and not rows["claims-failure"]["claimed_success"]
    assert rows["js-denied"]["check"]["failures"] == ["js: \"document.title === 'js ran'\" is false"]
    for r in rows.values():
        assert r["stop_reason"] == "done" and r["error"] is None
        assert r["tokens"] == r["tokens_in"] + r["tokens_out"] > 0 and r["wall_s"] > 0
    records = await asyncio.to_thread(
        lambda: [Path(r["run_dir"], "run.json").is_file() for r in rows.values()]
    )
    assert all(records), "a result points at no run record"
    assert rows["checked"]["steps"] == 2 and rows["checked"]["answer"] == "finished alpha"
    assert browser_session.contexts == [browser_session.context], "task contexts were left open"


async def test_failing_tasks_never_stop_the_others(make_jobs, browser_config, tmp_path: Path) -> None:
    register_steps()
    session = BrowserSession(browser_config)
    await session.start()
    killed: list[int] = []

    async def kill_browser(messages: list, tools: Any, kwargs: dict) -> FakeReply:
        """Kills this runner's Chromium, waits until Playwright noticed, then asks for a click."""
        assert session.driver_pid is not None and session.browser is not None
        gone = asyncio.get_running_loop().create_future()
        session.browser.on("disconnected", lambda _b: gone.done() or gone.set_result(True))
        main = [p for p in descendants(session.driver_pid) if p.is_chromium and "--type=" not in p.cmdline]
        os.kill(main[0].pid, signal.SIGKILL)
        killed.append(main[0].pid)
        await asyncio.wait_for(gone, 30)
        return FakeReply(tool_calls=[{"name": "scroll", "arguments": {"direction": "down"}}])

    register_fake("killer", kill_browser)
    jobs = await make_jobs(
        [
            {"id": "model-error", "task": "a [model-error]", "start_url": "{sites}/shop/"},
            {"id": "unreachable", "task": "b", "start_url": "http://127.0.0.1:9/"},
            {"id": "browser-dies", "task": "c", "start_url": "{sites}/shop/", "model": "kite/killer"},
            {"id": "after-crash", "task": "d", "start_url": "{sites}/shop/", "check": {"url": "/shop/"}},
        ]
    )
    out = tmp_path / "results.jsonl"
    try:
        runner = BatchRunner(jobs, LocalBackend(browser_config, browser=session), out=out)
        await runner.run()
        assert session.is_alive, "the runner did not bring the browser back"
    finally:
        await session.close()
    rows = {r["id"]: r for r in lines(out)}
    assert list(rows) == ["model-error", "unreachable", "browser-dies", "after-crash"]
    assert killed, "the killer model never ran"
    assert rows["model-error"]["stop_reason"] == "model_error" and "refuses" in rows["model-error"]["error"]
    assert rows["unreachable"]["stop_reason"] == "start_url_unreachable" and rows["unreachable"]["error"]
    dead = rows["browser-dies"]
    assert not dead["success"] and dead["error"], dead
    assert rows["after-crash"]["success"] and rows["after-crash"]["check"]["passed"], rows["after-crash"]


async def test_resume_skips_finished_ids_and_retry_failed(make_jobs, browser_session, tmp_path: Path) -> None:
    model = register_steps()
    jobs = await make_jobs(
        [{"id": f"t{i}", "task": f"task{i}", "start_url": "{sites}/shop/"} for i in range(4)]
    )
    out = tmp_path / "results.jsonl"
    earlier = [
        {"id": "t0", "success": True, "stop_reason": "done", "answer": "from before"},
        {"id": "t2", "success": False, "stop_reason": "max_steps"},
    ]
    out.write_text("".join(json.dumps(r) + "\n" for r in earlier) + '{"id": "t1", "succ')
    runner = BatchRunner(jobs, LocalBackend(browser_session.config, browser=browser_session), out=out)
    assert runner.existing.torn
    assert [j.id for j in runner.pending] == ["t1", "t3"]
    await runner.run()
    assert [r["id"] for r in lines(out)] == ["t0", "t2", "t1", "t3"]
    assert model.calls == 2 * 2  # two tasks of two steps each

    again = BatchRunner(jobs, LocalBackend(browser_session.config, browser=browser_session), out=out)
    assert again.pending == [] and await again.run() == []
    retry = BatchRunner(
        jobs, LocalBackend(browser_session.config, browser=browser_session), out=out, retry_failed=True
    )
    assert [j.id for j in retry.pending] == ["t2"]
    await retry.run()
    final = read_results(out)
    assert all(r.success for r in final.results.values()) and final.results["t0"].answer == "from before"
