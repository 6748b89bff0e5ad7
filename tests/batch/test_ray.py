"""The Ray backend on a local Ray instance started by the test (``ray.init(num_cpus=2)``): the same results
as the local backend for the same jobs, and a worker killed mid-task (by pid) survived with no loss and no
duplicate. Real Chromium in every worker; only the model is scripted (tests/batch/ray_models.py)."""

from __future__ import annotations

import asyncio
import functools
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest
import ray

from agent.batch.local import LocalBackend
from agent.batch.ray_backend import RayBackend
from agent.batch.runner import BatchRunner
from tests.batch.ray_models import register_ray_models

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]
ROOT = Path(__file__).resolve().parents[2]
TIMING = {"run_dir", "wall_s", "duration_s", "model_latency_s", "overhead_s", "finished_at"}
# The scripted model estimates prompt tokens from the prompt's length; in the whole suite, state left in this
# test process by earlier tests can lengthen the local prompt, while the Ray workers are fresh processes.
PROMPT_SIZE = {"tokens_in", "tokens"}


@pytest.fixture(scope="module")
def local_ray() -> Any:
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": str(ROOT), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}},
    )
    yield ray
    ray.shutdown()


TASKS = [
    {"id": "checked", "task": "alpha [steps=2]", "start_url": "{sites}/shop/", "check": {"url": "/shop/$"}},
    {"id": "claim-only", "task": "beta", "start_url": "{sites}/forms/"},
    {"id": "check-fails", "task": "gamma", "start_url": "{sites}/forms/", "check": {"text": "Nowhere"}},
    {"id": "claims-failure", "task": "delta [claim=false]", "start_url": "{sites}/shop/"},
]


async def test_same_results_as_the_local_backend(
    local_ray: Any, make_jobs: Any, browser_config: Any, tmp_path: Path
) -> None:
    register_ray_models()  # the local backend runs the same model in this process
    jobs = await make_jobs(TASKS)
    local = await BatchRunner(
        jobs, LocalBackend(browser_config, concurrency=2), out=tmp_path / "a.jsonl"
    ).run()
    backend = RayBackend(browser_config, workers=2, concurrency=2, setup=register_ray_models)
    remote = await BatchRunner(jobs, backend, out=tmp_path / "b.jsonl").run()

    by_local = {r.id: r for r in local}
    by_ray = {r.id: r for r in remote}
    assert sorted(by_ray) == sorted(by_local) == sorted(t["id"] for t in TASKS)
    for tid, r in by_ray.items():
        assert r.model_dump(exclude=TIMING | PROMPT_SIZE) == by_local[tid].model_dump(
            exclude=TIMING | PROMPT_SIZE
        ), tid
        assert r.tokens_in > 0 and by_local[tid].tokens_in > 0
        assert r.attempts == 1
    assert {tid for tid, r in by_ray.items() if r.success} == {"checked", "claim-only"}
    lines = [json.loads(x) for x in (tmp_path / "b.jsonl").read_text().splitlines()]
    assert sorted(x["id"] for x in lines) == sorted(by_ray), "the driver wrote every result once"


async def test_a_worker_killed_mid_task_is_survived(
    local_ray: Any, make_jobs: Any, browser_config: Any, tmp_path: Path
) -> None:
    hold = tmp_path / "victim.pid"
    jobs = await make_jobs(
        [
            {"id": "victim", "task": "v [victim] [steps=3]", "start_url": "{sites}/shop/"},
            *({"id": f"t{i}", "task": f"t{i} [steps=2]", "start_url": "{sites}/shop/"} for i in range(3)),
        ]
    )
    setup = functools.partial(register_ray_models, str(hold))
    backend = RayBackend(browser_config, workers=2, concurrency=2, setup=setup)
    out = tmp_path / "results.jsonl"
    runner = BatchRunner(jobs, backend, out=out)

    async def kill_the_victims_worker() -> int:
        deadline = asyncio.get_running_loop().time() + 180
        while not (hold.exists() and hold.read_text()):
            assert asyncio.get_running_loop().time() < deadline, "the victim task never reached step 2"
            await asyncio.sleep(0.1)  # polling a condition with a deadline
        pid = int(hold.read_text())
        assert pid in backend.pids()
        os.kill(pid, signal.SIGKILL)
        return pid

    killed, results = await asyncio.gather(kill_the_victims_worker(), runner.run())
    assert killed not in backend.pids()
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert sorted(r["id"] for r in rows) == ["t0", "t1", "t2", "victim"], "no loss, no duplicate"
    victim = next(r for r in results if r.id == "victim")
    assert victim.success and victim.steps == 3 and victim.attempts == 2, victim
    # a task that shared the victim's worker (2 contexts each) died with it and ran again too
    assert all(r.success and r.attempts in (1, 2) for r in results)


@pytest.mark.parametrize("command", ["batch", "eval"])
def test_without_ray_one_line_and_exit_2(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from agent.cli import main
    from tests.batch.conftest import write_tasks

    tasks = write_tasks(tmp_path / "t.yaml", [{"id": "a", "task": "a"}])
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    assert main([command, str(tasks), "--backend", "ray", "--model", "kite/steps"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["kite: error: the Ray backend needs Ray: pip install 'kite-agent[ray]'"]
