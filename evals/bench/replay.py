"""Record the sites suite with the oracle, then replay every task's workflow with no model (issue 32).

    python -m evals.bench.replay [--tasks a,b] [--concurrency N] [--json]

1. ``kite eval sites --model kite/oracle``: every task run by the agent loop, recorded;
2. each run saved as a workflow (agent/workflow/save.py) and replayed in a fresh context on the same sites
   (the suite's own approvals and secrets: the same gate), then scored by the task's own check. A check's
   ``answer`` / ``data`` parts are what the model reads off the page, which a replay does not do: those parts
   are left out, and such tasks are counted apart (``answer_tasks``);
3. the replay's wall time against the agent run's: measured (the oracle answers at once) and with a model
   that answers in 1 s (the run's wall time plus 1 s per model call: an estimate).

Prints a table per task and the totals; ``--json`` one object (keys with their unit).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from kite_browser.agent.batch.checks import evaluate
from kite_browser.agent.batch.jobs import Job
from kite_browser.agent.batch.results import TaskResult
from kite_browser.agent.browser.env import BrowserEnv, EnvSafety
from kite_browser.agent.browser.pool import BrowserPool
from kite_browser.agent.config import load_config
from kite_browser.agent.record import RunRecorder
from kite_browser.agent.workflow.errors import RunNotSavableError
from kite_browser.agent.workflow.replay import Replayer
from kite_browser.agent.workflow.save import workflow_from_run
from kite_browser.evals.harness import _Servers, run_eval, suite_jobs
from kite_browser.evals.tasks import find_suite, load_suite
from kite_browser.safety.confirm import BY_TASK, BatchConfirmer

MODEL_S = 1.0
"""The model latency the comparison assumes (issue 32: a model that answers in 1 s)."""


@dataclass
class Row:
    id: str
    agent_ok: bool
    agent_steps: int
    agent_s: float
    replay_ok: bool = False
    steps: int = 0
    replay_s: float = 0.0
    model_calls: int = 0
    answer_task: bool = False
    why: str = ""


async def replay_one(pool: BrowserPool, job: Job, task: TaskResult, folder: Path) -> Row:
    row = Row(task.id, task.success, task.steps, task.wall_s)
    if not task.success:
        row.why = "the agent's run failed its check: nothing to save"
        return row
    check = job.task.check
    row.answer_task = check is not None and (check.answer is not None or check.data is not None)
    try:
        wf = workflow_from_run(task.run_dir or "", require_success=False)  # the task's check passed
    except RunNotSavableError as exc:
        row.why = f"not saved: {exc.message}"
        return row
    row.steps = len(wf.steps)
    confirmer = BatchConfirmer(job.approve, allow=BY_TASK)
    safety = EnvSafety.from_config(job.config, confirmer, job.secrets)
    run_dir = folder / task.id
    env = await BrowserEnv.open(pool, job.config, safety, run_dir=run_dir)
    try:
        await env.start(run_dir)
        recorder = RunRecorder(run_dir, job.secrets.redact_obj)
        out = await Replayer(wf, start_url=job.task.start_url, recorder=recorder).run(env)
        row.replay_s, row.model_calls = out.wall_s, out.model_calls
        if out.error is not None:
            row.why = f"{out.error.type}: {out.error.message}"[:200]
        elif check is not None:
            page_part = check.model_copy(update={"answer": None, "data": None})
            verdict = await evaluate(page_part, env.ctx, run_dir=str(run_dir), base_url=job.task.start_url)
            row.why = "; ".join(verdict.failures)[:200]
        row.replay_ok = out.success and not row.why
    finally:
        await env.close()
    return row


def summary(rows: list[Row], record_s: float) -> dict[str, Any]:
    done = [r for r in rows if r.replay_ok]
    nothing = [r for r in rows if "no action to replay" in r.why]
    agent = sum(r.agent_s for r in done)
    agent_1s = sum(r.agent_s + MODEL_S * r.agent_steps for r in done)
    replay = sum(r.replay_s for r in done)
    return {
        "tasks": len(rows),
        "agent_successes": sum(r.agent_ok for r in rows),
        "replay_successes": len(done),
        "replay_success_rate": round(len(done) / len(rows), 3) if rows else 0.0,
        "answer_tasks": sum(r.answer_task for r in rows),
        "nothing_to_replay": len(nothing),
        "replay_successes_of_replayable": f"{len(done)}/{len(rows) - len(nothing)}",
        "model_calls_replay": sum(r.model_calls for r in rows),
        "model_calls_agent": sum(r.agent_steps for r in rows),
        "record_wall_s": round(record_s, 1),
        "agent_task_median_s": round(statistics.median([r.agent_s for r in done]), 2) if done else None,
        "replay_task_median_s": round(statistics.median([r.replay_s for r in done]), 2) if done else None,
        "replay_vs_agent_ratio": round(replay / agent, 3) if agent else None,
        "replay_vs_agent_1s_model_ratio": round(replay / agent_1s, 3) if agent_1s else None,
    }


async def bench(ids: list[str] | None, concurrency: int, root: Path) -> tuple[list[Row], dict[str, Any]]:
    suite = load_suite(find_suite("sites"))
    config = load_config(
        None,
        {"llm.model": "kite/oracle", "run.runs_dir": str(root / "runs"), "run.screenshots": False},
    )
    report = await run_eval(suite, config, concurrency=concurrency, ids=ids)
    servers = _Servers()
    try:
        jobs = {j.id: j for j in await suite_jobs(suite, config, servers, ids=ids)}
        async with BrowserPool(config.browser, downloads_dir=root / "downloads") as pool:
            rows = [await replay_one(pool, jobs[t.id], t, root / "replays") for t in report.tasks]
    finally:
        servers.stop()
    return rows, summary(rows, report.wall_s)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--tasks", help="only these task ids (comma-separated)")
    parser.add_argument("--concurrency", type=int, default=2, help="agent runs at once while recording")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    ids = [t.strip() for t in args.tasks.split(",")] if args.tasks else None
    with tempfile.TemporaryDirectory(prefix="kite-bench-replay-") as tmp:
        rows, totals = asyncio.run(bench(ids, args.concurrency, Path(tmp)))
    if args.json:
        print(json.dumps({**totals, "rows": [asdict(r) for r in rows]}, ensure_ascii=False))
        return 0
    print(f"{'task':34} {'agent':>6} {'steps':>5} {'replay':>6}  result")
    for r in rows:
        result = "ok" if r.replay_ok else r.why or "failed"
        print(f"{r.id:34} {r.agent_s:6.1f} {r.steps:5d} {r.replay_s:6.2f}  {result}")
    for key, value in totals.items():
        print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
