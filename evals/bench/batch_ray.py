"""Benchmark: the Ray backend vs the local backend on the same tasks, side by side in one run.

    python -m kite_browser.evals.bench.batch_ray [--tasks 16] [--workers 2] [--per-worker 2] [--latency 1.0] [--json]
    python -m kite_browser.evals.bench.batch_scale --backend ray ...   (the same)

The tasks of ``batch_scale`` (4 model calls each at a fixed latency, a URL check). Local: one browser at
concurrency workers x per-worker; Ray: ``workers`` actors (one Chromium each) with ``per-worker`` contexts,
on a local Ray started here (``ray.init(num_cpus=workers)``). Ray's overhead per task = the time the driver
waited for the task minus the task's own wall time in its worker (scheduling, transfer of the job and the
result); reported as a median with p95. Ray's start (workers and their browsers) is reported apart.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from kite_browser.agent.batch.backend import Backend
from kite_browser.agent.batch.jobs import Job
from kite_browser.agent.batch.local import LocalBackend
from kite_browser.agent.batch.ray_backend import RayBackend, require_ray
from kite_browser.agent.batch.results import TaskResult
from kite_browser.agent.batch.runner import BatchRunner
from kite_browser.agent.batch.tasks import Task
from kite_browser.agent.config import load_config
from kite_browser.agent.llm.own_models import register_model
from kite_browser.evals.bench.batch_tasks import MODEL, ScriptsByTask, _jobs, make_tasks, script_for
from kite_browser.evals.sites import SitesServer


def register_bench_model(sites: str, latency_s: float, tasks: list[Task]) -> None:
    """Runs in this process and in every Ray worker: the scripted model, one script per task."""
    model = ScriptsByTask(latency_s)
    for t in tasks:
        model.add(t.task, script_for(t, sites))
    register_model(MODEL, model)


class Timed:
    """A backend wrapper that records, per task, how long the driver waited for it."""

    def __init__(self, inner: Backend) -> None:
        self.inner, self.slots = inner, inner.slots
        self.waited: list[tuple[float, TaskResult]] = []
        self.start_s = 0.0

    async def start(self) -> None:
        t0 = time.perf_counter()
        await self.inner.start()
        self.start_s = time.perf_counter() - t0

    async def run(self, job: Job) -> TaskResult:
        t0 = time.perf_counter()
        result: TaskResult = await self.inner.run(job)
        self.waited.append((time.perf_counter() - t0, result))
        return result

    async def close(self) -> None:
        await self.inner.close()


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


async def run(n: int, workers: int, per_worker: int, latency_s: float) -> dict[str, Any]:
    ray = require_ray()
    tmp = Path(tempfile.mkdtemp(prefix="kite-bench-ray-"))
    try:
        with SitesServer() as server:
            sites = server.url("/").rstrip("/")
            config = load_config(
                overrides={
                    "llm.model": MODEL,
                    "llm.max_attempts": 1,
                    "run.runs_dir": str(tmp / "runs"),
                    "run.screenshots": False,
                    "browser.block_external_hosts": True,
                }
            )
            phases = {k: make_tasks(n, sites, k) for k in ("warmup", "local", "ray")}
            phases["warmup"] = phases["warmup"][:1]
            setup = functools.partial(
                register_bench_model, sites, latency_s, [t for p in phases.values() for t in p]
            )
            setup()
            slots = workers * per_worker
            results: dict[str, tuple[float, list[TaskResult], Timed]] = {}
            for name in ("warmup", "local"):
                local = Timed(LocalBackend(config.browser, concurrency=slots))
                jobs = await _jobs(phases[name], config, tmp)
                t0 = time.perf_counter()
                done = await BatchRunner(jobs, local, out=tmp / f"{name}.jsonl").run()
                results[name] = (time.perf_counter() - t0 - local.start_s, done, local)
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
            try:
                remote = Timed(
                    RayBackend(config.browser, workers=workers, concurrency=per_worker, setup=setup)
                )
                jobs = await _jobs(phases["ray"], config, tmp)
                t0 = time.perf_counter()
                done = await BatchRunner(jobs, remote, out=tmp / "ray.jsonl").run()
                results["ray"] = (time.perf_counter() - t0 - remote.start_s, done, remote)
            finally:
                ray.shutdown()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    local_wall, local_done, _ = results["local"]
    ray_wall, ray_done, timed = results["ray"]
    overhead = [max(0.0, waited - r.wall_s) * 1000 for waited, r in timed.waited]
    ideal = n * 4 * latency_s / slots
    return {
        "tasks": n,
        "workers": workers,
        "contexts_per_worker": per_worker,
        "model_latency_s": latency_s,
        "ideal_wall_s": round(ideal, 2),
        f"wall_local_concurrency_{slots}_s": round(local_wall, 2),
        f"wall_ray_{workers}x{per_worker}_s": round(ray_wall, 2),
        "ray_start_s": round(timed.start_s, 2),
        "ray_overhead_per_task_median_ms": round(statistics.median(overhead), 1) if overhead else 0.0,
        "ray_overhead_per_task_p95_ms": round(_pct(overhead, 0.95), 1),
        "successes_local_count": sum(r.success for r in local_done),
        "successes_ray_count": sum(r.success for r in ray_done),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "cpu_count": os.cpu_count(),
    }


def table(r: dict[str, Any]) -> str:
    w, c = r["workers"], r["contexts_per_worker"]
    rows = [
        (
            "tasks x model calls",
            f"{r['tasks']} x 4 at {r['model_latency_s']} s each (ideal {r['ideal_wall_s']} s)",
        ),
        (f"local, concurrency {w * c}", f"{r[f'wall_local_concurrency_{w * c}_s']} s"),
        (
            f"Ray, {w} workers x {c} contexts",
            f"{r[f'wall_ray_{w}x{c}_s']} s (+ {r['ray_start_s']} s to start)",
        ),
        (
            "Ray overhead per task",
            f"{r['ray_overhead_per_task_median_ms']} ms median, {r['ray_overhead_per_task_p95_ms']} ms p95",
        ),
        ("successes local / Ray", f"{r['successes_local_count']} / {r['successes_ray_count']}"),
        ("machine", f"{r['cpu_count']} CPUs, load average {r['load_average_1m']} at the end"),
    ]
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tasks", type=int, default=16)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--per-worker", type=int, default=2, help="browser contexts per worker")
    ap.add_argument("--latency", type=float, default=1.0, help="model latency per call, seconds")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    result = asyncio.run(run(args.tasks, args.workers, args.per_worker, args.latency))
    print(json.dumps(result) if args.json else table(result))


if __name__ == "__main__":
    main()
