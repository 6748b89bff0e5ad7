"""The Ray backend on one local Ray instance started for this module (``ray.init(num_cpus=2)``, reused by the
command lines run in this process): ``kite batch`` and ``kite eval --backend ray`` give the local backend's
results, run records come back to the driver's runs folder (or go to ``batch.ray.shared_runs_dir``), the
bundled local model is served on the workers' node (a stand-in server, tests/batch/fake_llama.py), and a worker
killed mid-task (by pid) is survived with no loss and no duplicate. Real Chromium in every worker; only the
model is scripted (tests/batch/ray_models.py; it travels to the workers with each job). A killed driver:
tests/batch/test_ray_driver.py."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import ray
import yaml

from kite_browser.agent.batch.ray_backend import RayBackend
from kite_browser.agent.batch.runner import BatchRunner
from kite_browser.agent.cli import main
from kite_browser.agent.config import load_config
from kite_browser.agent.llm.local import stop_local_server
from kite_browser.agent.llm.local_pins import MODEL_ALIAS
from kite_browser.agent.llm.local_watchdog import alive
from tests.batch.conftest import write_tasks
from tests.batch.fake_llama import install_fake_local
from tests.batch.ray_models import register_ray_models

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600), pytest.mark.xdist_group("ray")]
# 600 s: a hang guard, not a speed limit (in a clean-clone run at load 15 these took 243-300 s)
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


def _cli_config(tmp_path: Path, browser_config: Any, **extra: Any) -> str:
    """A --config file: offline, one model attempt, screenshots on (so records have images to bring back)."""
    browser = {"chromium_path": browser_config.chromium_path, "block_external_hosts": True,
               "data_dir": browser_config.data_dir}  # fmt: skip
    data = {"browser": browser, "run": {"screenshots": True}, "llm": {"max_attempts": 1}, **extra}
    path = tmp_path / f"kite-{len(list(tmp_path.glob('kite-*.yaml')))}.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return str(path)


def _comparable(row: dict[str, Any]) -> dict[str, Any]:
    """The row without timings, and with the bundled sites' port (each command starts its own) blanked."""
    kept = {k: v for k, v in row.items() if k not in TIMING | PROMPT_SIZE}
    return dict(json.loads(re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", json.dumps(kept))))


def test_kite_batch_on_ray_gives_the_local_results_and_brings_records_back(
    local_ray: Any, browser_config: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command line, in this process (the Ray started above is reused): `kite batch --backend ray` and the
    local backend on the same task file; the model registered here travels to the workers with each job."""
    register_ray_models()
    tasks = str(write_tasks(tmp_path / "tasks.yaml", TASKS))
    config = _cli_config(tmp_path, browser_config)
    common = ["--config", config, "batch", tasks, "--model", "kite/steps", "--concurrency", "2"]
    local_out, ray_out, ray_runs = tmp_path / "local.jsonl", tmp_path / "ray.jsonl", tmp_path / "ray-runs"
    assert main([*common, "--out", str(local_out), "--runs-dir", str(tmp_path / "local-runs")]) == 1
    capsys.readouterr()
    argv = [*common, "--out", str(ray_out), "--runs-dir", str(ray_runs), "--backend", "ray", "--workers", "2"]
    assert main(argv) == 1  # two of the tasks fail, on either backend
    printed = capsys.readouterr()
    assert "kite batch: 4 task(s) to run, 4 at once" in printed.err
    assert f"run records: {ray_runs}" in printed.out

    local = {r["id"]: r for r in map(json.loads, local_out.read_text().splitlines())}
    remote = [json.loads(line) for line in ray_out.read_text().splitlines()]
    assert sorted(r["id"] for r in remote) == sorted(local) == sorted(t["id"] for t in TASKS), "each id once"
    for r in remote:
        assert _comparable(r) == _comparable(local[r["id"]]), r["id"]
        assert r["tokens_in"] > 0 and r["attempts"] == 1
    assert {r["id"] for r in remote if r["success"]} == {"checked", "claim-only"}
    # every task's record came back into the driver's runs folder, screenshots included
    assert sorted(p.name for p in ray_runs.iterdir()) == sorted(Path(r["run_dir"]).name for r in remote)
    for r in remote:
        folder = Path(r["run_dir"])
        assert folder.parent == ray_runs and (folder / "steps.jsonl").is_file(), r["id"]
        assert json.loads((folder / "run.json").read_text())["result"]["run_dir"] == str(folder)
        assert len(list((folder / "screenshots").glob("*.png"))) >= r["steps"], r["id"]


def test_kite_eval_on_ray_with_the_local_model_served_on_the_workers_node(
    local_ray: Any, browser_config: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`kite eval --model local` on both backends, with a stand-in for the bundled model server
    (tests/batch/fake_llama.py). Local: this process starts the server. Ray: the driver starts nothing; the
    first worker that needs it starts it on its node and the other worker there shares it. Ray's workers write
    the run records straight into `batch.ray.shared_runs_dir`."""
    home, shared = tmp_path / "home", tmp_path / "shared-runs"
    root = install_fake_local(home)
    suite = str(write_tasks(tmp_path / "suite.yaml", [{"id": f"l{i}", "task": f"l{i}"} for i in range(2)]))
    extra = {"batch": {"ray": {"shared_runs_dir": str(shared)}}}
    config = _cli_config(tmp_path, browser_config.model_copy(update={"data_dir": str(home)}), **extra)
    reports, starts = {}, []
    for backend in ("local", "ray"):
        argv = ["--config", config, "eval", suite, "--model", "local", "--concurrency", "1", "--workers", "2",
                "--runs-dir", str(tmp_path / f"{backend}-runs"), "--json", str(tmp_path / f"{backend}.json"),
                "--backend", backend]  # fmt: skip
        assert main(argv) == 0, capsys.readouterr().err
        out = capsys.readouterr().out
        assert f"run records: {shared if backend == 'ray' else tmp_path / 'local-runs'}" in out
        reports[backend] = json.loads((tmp_path / f"{backend}.json").read_text())
        starts.append(json.loads((root / "fake-starts.log").read_text().splitlines()[-1]))
        if backend == "local":
            stop_local_server(load_config(config))  # this process would keep it to its exit
    local, remote = ({t["id"]: _comparable(t) for t in reports[b]["tasks"]} for b in ("local", "ray"))
    assert remote == local and sorted(remote) == ["l0", "l1"]
    assert all(t["success"] and t["answer"] == "answered locally" for t in reports["ray"]["tasks"])
    assert {t["model"] for t in reports["ray"]["tasks"]} == {"openai/" + MODEL_ALIAS}

    calls = [json.loads(line) for line in (root / "fake-calls.log").read_text().splitlines()]
    assert len(calls) == 4 and len(starts) == 2  # a call per task; one server per run
    assert starts[0]["parent"] == os.getpid() == calls[0]["clients"][0], "local: this process's own server"
    workers = set(calls[-1]["clients"])  # the second Ray task's call: both workers use the one server
    assert len(workers) == 2 and os.getpid() not in workers, calls
    assert starts[1]["parent"] in workers, "a worker started it, on its node"
    assert not alive(starts[1]["pid"]), "the last worker out stopped it"
    assert _gone(workers), "the workers ended with the run"
    # workers wrote the records straight into the shared folder: none in the eval's own runs folder
    assert not (tmp_path / "ray-runs").exists() or not any((tmp_path / "ray-runs").iterdir())
    folders = sorted(Path(t["run_dir"]) for t in reports["ray"]["tasks"])
    assert [f.parent for f in folders] == [shared, shared] and all(
        (f / "run.json").is_file() for f in folders
    )


def _gone(pids: set[int], timeout_s: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)  # polling a condition with a deadline
    return not any(alive(p) for p in pids)


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
    register_ray_models(str(hold))  # travels with each job to the workers
    backend = RayBackend(browser_config, workers=1, concurrency=2)
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
    tasks = write_tasks(tmp_path / "t.yaml", [{"id": "a", "task": "a"}])
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    assert main([command, str(tasks), "--backend", "ray", "--model", "kite/steps"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["kite: error: the Ray backend needs Ray: pip install 'kite-browser-agent[ray]'"]
