"""Run endpoints: start, list, show, live events (SSE, resumable with ``Last-Event-ID``), stop, screenshots,
the run record, and answers to confirmations (see the API reference in ``agent/server/__init__.py``)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Header, Query, Request, Response
from fastapi import Path as PathParam
from fastapi.responses import FileResponse, StreamingResponse

from kite_browser.agent.run.memory import describe_action
from kite_browser.agent.server import handover
from kite_browser.agent.server.confirm import answer_or_raise
from kite_browser.agent.server.errors import ApiError, responses
from kite_browser.agent.server.run import Run
from kite_browser.agent.server.run_models import (
    ConfirmationAnswer,
    ConfirmationResult,
    HandOverAnswer,
    HandOverView,
    Outcome,
    PageInput,
    RunList,
    RunRecord,
    RunRequest,
    RunSummary,
    RunView,
)
from kite_browser.agent.server.runs import RunManager

KEEPALIVE_S = 15.0
LIVE_TIMEOUT_MS = 2000
"""A live frame not taken by then is skipped (the panel asks again a second later)."""
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
PNG: dict[int | str, dict[str, object]] = {
    200: {"content": {"image/png": {"schema": {"type": "string", "format": "binary"}}}}
}
ANY_FILE: dict[int | str, dict[str, object]] = {
    200: {"content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}}
}
EVENTS: dict[int | str, dict[str, object]] = {
    200: {
        "description": (
            "Server-sent events: ``id: N``, ``event: <kind>``, ``data: <JSON>``; ends after ``finish``. A "
            "``confirm`` event's data is a ConfirmationView (with its ``step``, ``action_text`` and ``target``); "
            "``finish`` has ``result``, ``status`` and ``error`` (as GET /api/runs/{id} shows them)."
        ),
        "content": {"text/event-stream": {"schema": {"type": "string"}}},
    }
}


RunId = Annotated[str, PathParam(min_length=1, max_length=64, description="The run's id.")]
StepNumber = Annotated[int, PathParam(ge=0, le=100_000, description="The step (0 = the start URL).")]
ConfirmationId = Annotated[str, PathParam(min_length=1, max_length=64, description="The confirmation's id.")]
LastEventId = Annotated[
    int | None, Header(alias="Last-Event-ID", ge=0, description="Resume after this event id.")
]


def manager(request: Request) -> RunManager:
    runs: RunManager = request.app.state.kite.runs
    return runs


def _inside(folder: Path, relative: str) -> Path:
    """``folder/relative`` if that is a file inside ``folder`` (symlinks resolved), else a typed 404/400 (a NUL
    byte or a name the file system refuses is a 400, not an exception)."""
    root = folder.resolve()
    invalid = ApiError(400, "invalid_path", f"{relative!r} is not a file of the run's record", path=relative)
    try:
        target = (root / relative).resolve()
        if not target.is_relative_to(root) or target == root:
            raise invalid
        found = target.is_file()
    except (ValueError, OSError):
        raise invalid from None
    if not found:
        raise ApiError(404, "unknown_file", f"the run's record has no file {relative!r}", path=relative)
    return target


def _worded(step: dict[str, object]) -> dict[str, object]:
    """A recorded step whose actions each get ``action_text``: the action as the TUI words it."""
    actions = step.get("actions")
    for outcome in actions if isinstance(actions, list) else []:
        if isinstance(outcome, dict) and isinstance(action := outcome.get("action"), dict):
            outcome["action_text"] = describe_action(action)
    return step


def _local_day(created_at: str, tz: int) -> str:
    """The day (YYYY-MM-DD) a run started on, on a clock ``tz`` minutes east of UTC (a time without an offset
    is UTC; one that cannot be read keeps its own date part)."""
    try:
        when = datetime.fromisoformat(created_at)
    except ValueError:
        return created_at[:10]
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return (when.astimezone(UTC) + timedelta(minutes=tz)).date().isoformat()


def _chosen(
    runs: list[RunSummary],
    q: str | None,
    outcome: str | None,
    model: str | None,
    date: str | None,
    tz: int = 0,
) -> list[RunSummary]:
    """The list's search (every word of ``q`` in the task) and filters (outcome, model, day on the asker's
    clock: ``tz`` minutes east of UTC)."""
    words = (q or "").lower().split()
    return [
        r
        for r in runs
        if all(w in r.task.lower() for w in words)
        and (outcome is None or r.outcome == outcome)
        and (model is None or r.model == model)
        and (date is None or _local_day(r.created_at, tz) == date)
    ]


def _record(folder: Path) -> RunRecord:
    """A run's record folder as GET .../record answers it."""
    run_json: dict[str, object] = {}
    if (folder / "run.json").is_file():
        run_json = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    steps = []
    if (folder / "steps.jsonl").is_file():
        lines = (folder / "steps.jsonl").read_text(encoding="utf-8").splitlines()
        steps = [_worded(json.loads(x)) for x in lines if x.strip()]
    files = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
    return RunRecord(run=run_json, steps=steps, files=files)


def _models(runs: list[RunSummary]) -> list[str]:
    return sorted({r.model for r in runs if r.model})


async def _live_frame(run: Run) -> bytes:
    """A JPEG of the page the run is on. 409 ``not_running`` once the run is over (the panel stops asking and
    shows the outcome); 409 ``no_frame`` while there is no picture (starting, or the page is busy: the panel
    asks again, less often)."""
    if run.done or run.result is not None:
        raise ApiError(409, "not_running", f"run {run.id} is {run.status}", run=run.id, run_status=run.status)
    ctx = run.context
    if ctx is None:
        raise ApiError(409, "no_frame", "the run has no page yet", run=run.id, run_status=run.status)
    try:
        return await ctx.page.screenshot(type="jpeg", quality=70, timeout=LIVE_TIMEOUT_MS)
    except Exception as exc:  # the page is busy, navigating or closed: the panel keeps the last frame
        message = f"no picture of the page right now: {exc}"[:300]
        raise ApiError(409, "no_frame", message, run=run.id, run_status=run.status) from None


async def _stream(run: Run, after: int) -> AsyncIterator[str]:
    async for event in run.follow(after, KEEPALIVE_S):
        yield ": keep-alive\n\n" if event is None else event.sse()


def router() -> APIRouter:
    api = APIRouter(prefix="/api/runs", tags=["runs"])

    @api.post(
        "",
        status_code=201,
        summary="Start an agent run",
        responses=responses(409, 429, 503),
    )
    async def start(body: RunRequest, request: Request) -> RunView:
        run = await manager(request).start(body, traceparent=request.headers.get("traceparent"))
        return run.view()

    @api.get("", summary="The runs, live and on disk, newest first: searched, filtered, paged")
    async def runs(
        request: Request,
        q: Annotated[str | None, Query(max_length=500, description="Words the task must contain.")] = None,
        outcome: Annotated[Outcome | None, Query(description="Only runs that ended so.")] = None,
        model: Annotated[str | None, Query(max_length=200, description="Only runs of this model.")] = None,
        date: Annotated[
            str | None,
            Query(
                pattern=r"^\d{4}-\d{2}-\d{2}$",
                description="Only runs started that day (YYYY-MM-DD, on the clock of tz).",
            ),
        ] = None,
        tz: Annotated[
            int,
            Query(
                ge=-1440,
                le=1440,
                description="The asker's clock for date: minutes east of UTC (UTC+2: 120); default UTC.",
            ),
        ] = 0,
        offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
        limit: Annotated[int, Query(ge=1, le=200)] = 50,
    ) -> RunList:
        every = await asyncio.to_thread(manager(request).summaries)  # reads run.json files: off the loop
        chosen = _chosen(every, q, outcome, model, date, tz)
        return RunList(runs=chosen[offset : offset + limit], total=len(chosen), models=_models(every))

    @api.get("/{run_id}", summary="A run: status, steps, result, waiting confirmations")
    async def show(run_id: RunId, request: Request) -> RunView:
        return await asyncio.to_thread(manager(request).view, run_id)

    @api.get(
        "/{run_id}/live",
        summary="The page the run is on now (JPEG), while it runs; 409 not_running once it is over, 409 "
        "no_frame while it has no picture (starting, or the page is busy)",
        response_class=Response,
        responses={
            200: {"content": {"image/jpeg": {"schema": {"type": "string", "format": "binary"}}}},
            **responses(409),
        },
    )
    async def live(run_id: RunId, request: Request) -> Response:
        shot = await _live_frame(manager(request).get(run_id))
        return Response(shot, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    @api.get("/{run_id}/events", summary="The run's events, live (SSE)", responses=EVENTS)
    async def events(
        run_id: RunId,
        request: Request,
        last_event_id: LastEventId = None,
    ) -> StreamingResponse:
        run = manager(request).get(run_id)
        return StreamingResponse(
            _stream(run, last_event_id or 0), media_type="text/event-stream", headers=SSE_HEADERS
        )

    @api.post("/{run_id}/stop", summary="Stop the run (its record is saved); answers the run")
    async def stop(run_id: RunId, request: Request) -> RunView:
        runs = manager(request)
        run = runs.get(run_id)
        await runs.stop(run)
        return run.view()

    @api.get(
        "/{run_id}/screenshots/{n}",
        summary="The screenshot of step n",
        response_class=FileResponse,
        responses=PNG,
    )
    async def screenshot(run_id: RunId, n: StepNumber, request: Request) -> FileResponse:
        name = f"step-{n:03d}.png"
        path = manager(request).record_dir(run_id) / "screenshots" / name
        if not path.is_file():
            raise ApiError(404, "unknown_screenshot", f"run {run_id} has no screenshot of step {n}", step=n)
        return FileResponse(path, media_type="image/png")

    @api.get("/{run_id}/record", summary="The run record: run.json, the steps, the files")
    async def record(run_id: RunId, request: Request) -> RunRecord:
        return _record(manager(request).record_dir(run_id))

    @api.get(
        "/{run_id}/record/{path:path}",
        summary="A file of the run record",
        response_class=FileResponse,
        responses=ANY_FILE,
    )
    async def record_file(run_id: RunId, path: str, request: Request) -> FileResponse:
        folder = manager(request).record_dir(run_id)
        return FileResponse(_inside(folder, path))

    @api.post(
        "/{run_id}/confirmations/{cid}",
        summary="Answer a waiting confirmation (approve or deny)",
        responses=responses(409),
    )
    async def confirm(
        run_id: RunId,
        cid: ConfirmationId,
        body: ConfirmationAnswer,
        request: Request,
    ) -> ConfirmationResult:
        run = manager(request).get(run_id)
        return answer_or_raise(run, cid, body, f"run {run.id} has no confirmation {cid!r}")

    @api.post(
        "/{run_id}/handover/{hid}",
        summary="Hand the browser back: the person did what the run asked (done) or could not",
        responses=responses(404),
    )
    async def hand_back(
        run_id: RunId, hid: ConfirmationId, body: HandOverAnswer, request: Request
    ) -> HandOverView:
        return handover.answer(manager(request).get(run_id), hid, body)

    @api.post(
        "/{run_id}/input",
        status_code=204,
        summary="The person's click, typing, key or wheel on the run's page, while it is handed over",
        responses=responses(409),
    )
    async def page_input(run_id: RunId, body: PageInput, request: Request) -> Response:
        run = manager(request).get(run_id)
        await handover.page_input(run, body)
        return Response(status_code=204)

    return api
