"""Benchmark: ``kite batch`` concurrency. The same tasks at concurrency 1 and N in one browser, with a scripted
model that answers every call after a fixed latency; and Chromium's memory per concurrent context.

    python -m kite_browser.evals.bench.batch_scale [--tasks 16] [--concurrency 4] [--latency 1.0] [--screenshots] [--json]
    python -m kite_browser.evals.bench.batch_scale --backend ray [--workers 2] [--per-worker 2] ...   (evals/bench/batch_ray.py)

Each task opens a product page of the bundled shop, scrolls, goes back and finishes (4 model calls), scored
by a URL check. Target: concurrency 4 finishes >= 3x faster than concurrency 1. Memory: the summed RSS (and
PSS, which counts shared pages once) of the browser's processes from /proc — before any task, and sampled
while exactly N tasks run — divided by N. One warm-up task runs first (tokenizer tables, renderer start).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from kite_browser.agent.base.jsontypes import JsonObject
from kite_browser.agent.batch.local import LocalBackend
from kite_browser.agent.batch.runner import BatchRunner
from kite_browser.agent.batch.tasks import Task
from kite_browser.agent.browser.procs import chromium_descendants
from kite_browser.agent.browser.session import BrowserSession
from kite_browser.agent.config import KiteConfig, load_config
from kite_browser.agent.llm.own_models import register_model
from kite_browser.evals.bench.batch_tasks import MODEL, ScriptsByTask, _jobs, make_tasks, script_for
from kite_browser.evals.sites import SitesServer


def _kb(path: Path, key: str) -> int:
    try:
        for line in path.read_text().splitlines():
            if line.startswith(key):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def chromium_memory_mb(session: BrowserSession) -> tuple[float, float]:
    """(RSS, PSS) summed over the browser's Chromium processes, in MB."""
    if session.driver_pid is None:
        return 0.0, 0.0
    rss = pss = 0
    for proc in chromium_descendants(session.driver_pid):
        base = Path("/proc") / str(proc.pid)
        rss += _kb(base / "status", "VmRSS:")
        pss += _kb(base / "smaps_rollup", "Pss:")
    return rss / 1024, pss / 1024


class Sampler:
    """Samples (tasks running, RSS, PSS) every ``every_s`` while a runner works."""

    def __init__(self, session: BrowserSession, every_s: float = 1.0) -> None:
        self.session, self.every_s = session, every_s
        self.runner: BatchRunner | None = None
        self.samples: list[tuple[int, float, float]] = []

    async def loop(self) -> None:
        while True:
            active = self.runner.active if self.runner is not None else 0
            rss, pss = await asyncio.to_thread(chromium_memory_mb, self.session)
            self.samples.append((active, rss, pss))
            await asyncio.sleep(self.every_s)


async def _phase(
    tasks: list[Task],
    concurrency: int,
    config: KiteConfig,
    session: BrowserSession,
    sampler: Sampler,
    tmp: Path,
) -> tuple[float, int, list[tuple[int, float, float]]]:
    jobs = await _jobs(tasks, config, tmp)
    out = tmp / f"results-{tasks[0].id.rsplit('-', 1)[0]}.jsonl"
    backend = LocalBackend(config.browser, concurrency=concurrency, browser=session)
    runner = BatchRunner(jobs, backend, out=out)
    sampler.runner, first = runner, len(sampler.samples)
    started = time.perf_counter()
    results = await runner.run()
    wall = time.perf_counter() - started
    sampler.runner = None
    return wall, sum(r.success for r in results), sampler.samples[first:]


async def run(n: int, concurrency: int, latency_s: float, screenshots: bool) -> JsonObject:
    tmp = Path(tempfile.mkdtemp(prefix="kite-bench-batch-"))
    try:
        return await _run(tmp, n, concurrency, latency_s, screenshots)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


async def _run(tmp: Path, n: int, concurrency: int, latency_s: float, screenshots: bool) -> JsonObject:
    model = ScriptsByTask(latency_s)
    register_model(MODEL, model)
    with SitesServer() as server:
        sites = server.url("/").rstrip("/")
        config = load_config(
            overrides={
                "llm.model": MODEL,
                "llm.max_attempts": 1,
                "run.runs_dir": str(tmp / "runs"),
                "run.screenshots": screenshots,
                "browser.block_external_hosts": True,
            }
        )
        phases = {"warmup": make_tasks(1, sites, "warmup"), "c1": make_tasks(n, sites, "c1")}
        phases["cN"] = make_tasks(n, sites, "cN")
        for tasks in phases.values():
            for t in tasks:
                model.add(t.task, script_for(t, sites))
        session = BrowserSession(config.browser)
        await session.start()
        sampler = Sampler(session)
        sampling = asyncio.ensure_future(sampler.loop())
        try:
            await _phase(phases["warmup"], 1, config, session, sampler, tmp)
            rss0, pss0 = chromium_memory_mb(session)
            wall1, ok1, samples1 = await _phase(phases["c1"], 1, config, session, sampler, tmp)
            wallN, okN, samplesN = await _phase(phases["cN"], concurrency, config, session, sampler, tmp)
        finally:
            sampling.cancel()
            await session.close()
    full = [s for s in samplesN if s[0] == concurrency] or samplesN
    one = [s for s in samples1 if s[0] == 1] or samples1
    rssN = statistics.median(s[1] for s in full)
    pssN = statistics.median(s[2] for s in full)
    calls = 4
    return {
        "tasks": n,
        "concurrency": concurrency,
        "model_latency_s": latency_s,
        "model_calls_per_task": calls,
        "screenshots": screenshots,
        "wall_concurrency_1_s": round(wall1, 2),
        f"wall_concurrency_{concurrency}_s": round(wallN, 2),
        "ideal_wall_concurrency_1_s": round(n * calls * latency_s, 2),
        f"ideal_wall_concurrency_{concurrency}_s": round(n * calls * latency_s / concurrency, 2),
        "speedup_x": round(wall1 / wallN, 2),
        "successes_concurrency_1_count": ok1,
        f"successes_concurrency_{concurrency}_count": okN,
        "chromium_rss_before_mb": round(rss0, 1),
        "chromium_pss_before_mb": round(pss0, 1),
        "chromium_rss_one_task_mb": round(statistics.median(s[1] for s in one), 1),
        f"chromium_rss_{concurrency}_tasks_mb": round(rssN, 1),
        f"chromium_pss_{concurrency}_tasks_mb": round(pssN, 1),
        "rss_per_context_mb": round((rssN - rss0) / concurrency, 1),
        "pss_per_context_mb": round((pssN - pss0) / concurrency, 1),
        "memory_samples_count": len(full),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "cpu_count": os.cpu_count(),
    }


def table(r: JsonObject) -> str:
    c = r["concurrency"]
    rows = [
        (
            "tasks x model calls",
            f"{r['tasks']} x {r['model_calls_per_task']} at {r['model_latency_s']} s each",
        ),
        ("wall, concurrency 1", f"{r['wall_concurrency_1_s']} s (ideal {r['ideal_wall_concurrency_1_s']} s)"),
        (
            f"wall, concurrency {c}",
            f"{r[f'wall_concurrency_{c}_s']} s (ideal {r[f'ideal_wall_concurrency_{c}_s']} s)",
        ),
        ("speed-up", f"{r['speedup_x']}x (target >= 3x)"),
        ("successes", f"{r['successes_concurrency_1_count']} / {r[f'successes_concurrency_{c}_count']}"),
        ("Chromium RSS before", f"{r['chromium_rss_before_mb']} MB (PSS {r['chromium_pss_before_mb']} MB)"),
        (
            f"Chromium RSS, {c} tasks",
            f"{r[f'chromium_rss_{c}_tasks_mb']} MB (PSS {r[f'chromium_pss_{c}_tasks_mb']} MB)",
        ),
        ("per concurrent context", f"RSS {r['rss_per_context_mb']} MB, PSS {r['pss_per_context_mb']} MB"),
        ("machine", f"{r['cpu_count']} CPUs, load average {r['load_average_1m']} at the end"),
    ]
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


def main() -> None:
    import sys

    if "--backend" in sys.argv:
        i = sys.argv.index("--backend")
        rest = sys.argv[1:i] + sys.argv[i + 2 :]
        if sys.argv[i + 1 : i + 2] == ["ray"]:
            from kite_browser.evals.bench.batch_ray import main as ray_main

            ray_main(rest)
            return
        sys.argv = [sys.argv[0], *rest]
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tasks", type=int, default=16)
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--latency", type=float, default=1.0, help="model latency per call, seconds")
    ap.add_argument("--screenshots", action="store_true", help="save a screenshot per step (off by default)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    result = asyncio.run(run(args.tasks, args.concurrency, args.latency, args.screenshots))
    print(json.dumps(result) if args.json else table(result))


if __name__ == "__main__":
    main()
