"""A ``BatchRunner`` cancelled in-process (a library caller, a timeout, Ctrl-C's handler) while one task is
mid-action in the browser and another is in a model call that loses the cancel (tests/batch/holder.py): no task
writes a result; the survivor does nothing more (its reply is not even judged, no further model call) and
its run record says ``interrupted``, like the other's. And a cancel lost after the agent's run, while the
task is scored, writes nothing either. Real headless Chromium and a real local HTTP server that holds the navigation; the model is
faked, and in the second test the scorer (a pluggable part) holds and loses the cancel."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from kite_browser.agent.batch.jobs import Job
from kite_browser.agent.batch.local import LocalBackend
from kite_browser.agent.batch.runner import BatchRunner
from kite_browser.agent.batch.scoring import CheckScorer, Verdict
from kite_browser.agent.batch.tasks import Task
from kite_browser.agent.llm.own_models import register_model, unregister_model
from kite_browser.agent.llm.testing import ScriptedModel
from kite_browser.agent.run.record import RunResult
from tests.batch.holder import LOSE, register_holder

if TYPE_CHECKING:
    from kite_browser.agent.browser.session import ContextSession

WAIT_S = 60.0
"""Upper bound for a condition to come true (a test that fails ends instead of hanging)."""


class _Held(BaseHTTPRequestHandler):
    """Answers nothing until the test ends: a navigation to it stays in flight."""

    hit: threading.Event
    release: threading.Event

    def do_GET(self) -> None:
        self.hit.set()
        self.release.wait(WAIT_S)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def held_server() -> Iterator[tuple[str, threading.Event]]:
    hit, release = threading.Event(), threading.Event()
    handler = type("Handler", (_Held,), {"hit": hit, "release": release})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/held", hit
    finally:
        release.set()
        server.shutdown()
        server.server_close()


def _tracking(children: list[asyncio.Task[Any]]) -> Callable[[Job], None]:
    """An ``on_start`` hook that keeps each job's task (the runner's own), to wait for every one to end."""

    def on_start(job: Job) -> None:
        task = asyncio.current_task()
        assert task is not None
        children.append(task)

    return on_start


def _results(runs: Path) -> dict[str, dict]:
    """Each run's result by its label (``run.json``, written however the run ended)."""
    out = {}
    for run_json in runs.glob("*/run.json"):
        data = json.loads(run_json.read_text(encoding="utf-8"))
        out[run_json.parent.name.rsplit("-", 1)[-1]] = data["result"]
    return out


async def test_a_cancelled_runner_records_no_task_and_the_one_that_lost_the_cancel_stops(
    make_jobs, tmp_path: Path
) -> None:
    holder = register_holder(hold=True)
    with held_server() as (held_url, hit):
        to_held = ScriptedModel([{"name": "navigate", "arguments": {"url": held_url}}], name="kite/to-held")
        register_model(to_held.name, to_held)
        try:
            jobs = await make_jobs(
                [
                    {
                        "id": "navigating",
                        "task": "open it",
                        "start_url": "{sites}/shop/",
                        "model": to_held.name,
                    },
                    {
                        "id": "lose",
                        "task": f"look {LOSE}",
                        "start_url": "{sites}/shop/",
                        "model": holder.name,
                    },
                ],
                **{"agent.max_steps": 4},
            )
            out, children = tmp_path / "results.jsonl", list[asyncio.Task[Any]]()
            # the backend's own browser, closed on the way out (as in kite batch): under the survivor
            backend = LocalBackend(jobs[0].config.browser, concurrency=2)
            runner = BatchRunner(jobs, backend, out=out, on_start=_tracking(children))
            run = asyncio.ensure_future(runner.run())
            await asyncio.wait_for(holder.holding[LOSE].wait(), WAIT_S)  # in its model call
            assert await asyncio.to_thread(hit.wait, WAIT_S), "the navigation never reached the server"
            holder.release()  # the reply lands in the loop iteration of the cancel: wait_for returns it (3.11)
            run.cancel()
            with pytest.raises(asyncio.CancelledError):
                await run
            _, pending = await asyncio.wait(children, timeout=WAIT_S)  # the survivor too has ended
            assert not pending
        finally:
            unregister_model(to_held.name)
            unregister_model(holder.name)

    assert not out.exists() or out.read_text() == "", out.read_text()
    assert all(c.cancelled() for c in children), [c.exception() for c in children if not c.cancelled()]
    assert holder.after_cancel == 0, "the model was asked again after the cancel"
    runs = _results(tmp_path / "runs")
    assert {k: (r["stop_reason"], r["steps"]) for k, r in runs.items()} == {
        "navigating": ("interrupted", 1),
        "lose": ("interrupted", 1),
    }, runs
    lines = (
        (next((tmp_path / "runs").glob("*-lose")) / "steps.jsonl").read_text(encoding="utf-8").splitlines()
    )
    (step_1,) = [row for row in map(json.loads, lines) if row["step"] == 1]
    # the reply that beat the cancel is recorded, but not even judged (the batch policy would decline it)
    assert step_1["reply"]["tool_calls"][0]["name"] == "executeJS"
    assert not step_1.get("actions") and not runs["lose"]["declined"], step_1


class LosingScorer:
    """``CheckScorer``, but ``score`` holds until ``release()``; a verdict released together with the cancel is
    returned by ``asyncio.wait_for`` instead of the cancel (CPython 3.11; on 3.12+ it drops the cancel itself)."""

    def __init__(self) -> None:
        self.holding = asyncio.Event()
        self.verdict: asyncio.Future[Verdict] | None = None

    async def prepare(self, task: Task, ctx: ContextSession) -> tuple[str, str | None]:
        return await CheckScorer().prepare(task, ctx)

    async def ended(self, ctx: ContextSession) -> str | None:
        return None

    async def score(self, task: Task, ctx: ContextSession, run: RunResult) -> Verdict:
        self.verdict = asyncio.get_running_loop().create_future()
        self.holding.set()
        try:
            return await asyncio.wait_for(self.verdict, WAIT_S)
        except asyncio.CancelledError:
            return Verdict(run.success, float(run.success))

    def release(self) -> None:
        assert self.verdict is not None
        self.verdict.set_result(Verdict(True, 1.0))


async def test_a_cancel_lost_while_the_task_is_scored_writes_nothing(
    make_jobs, steps_model: Any, browser_session: Any, tmp_path: Path
) -> None:
    (job,) = await make_jobs([{"id": "scored", "task": "scored [steps=1]", "start_url": "{sites}/shop/"}])
    job.scorer = scorer = LosingScorer()
    out, children = tmp_path / "results.jsonl", list[asyncio.Task[Any]]()
    backend = LocalBackend(job.config.browser, browser=browser_session)
    runner = BatchRunner([job], backend, out=out, on_start=_tracking(children))
    run = asyncio.ensure_future(runner.run())
    await asyncio.wait_for(scorer.holding.wait(), WAIT_S)  # the agent has finished; the task is being scored
    scorer.release()
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    assert not out.exists() or out.read_text() == "", out.read_text()
    assert children and children[0].cancelled()
    assert BatchRunner([job], backend, out=out).pending == [job]  # it runs again on resume
