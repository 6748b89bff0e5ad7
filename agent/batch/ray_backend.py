"""The Ray backend: a pool of Ray actors, each owning one Chromium and running several tasks at once (one
browser context each), fed by the same ``BatchRunner`` as the local backend, so results, the results file,
resume and progress are the same.

A worker that dies mid-task (its process, its node) makes that task run again on another worker, up to
``max_attempts``; the result says how many attempts it took (``attempts``). Results travel back to the
driver, which appends them; so do run records, unless ``shared_runs_dir`` names a folder the workers write to
directly (agent/batch/ray_worker.py). A model registered in the driver's process (``register_model``) travels
with each job, so workers run the same model object. A local Ray started here is reaped if the driver is
killed (agent/batch/ray_reaper.py). Ray is optional (``pip install 'kite-browser-agent[ray]'``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.batch import ray_reaper
from kite_browser.agent.batch.execute import failed
from kite_browser.agent.batch.jobs import Job
from kite_browser.agent.batch.ray_worker import BrowserWorker, Outcome
from kite_browser.agent.batch.records import unpack
from kite_browser.agent.batch.results import TaskResult
from kite_browser.agent.config import BrowserConfig
from kite_browser.agent.llm.own_models import registered_model

if TYPE_CHECKING:
    from ray import ObjectRef
    from ray.actor import ActorHandle

INSTALL_HINT = "the Ray backend needs Ray: pip install 'kite-browser-agent[ray]'"


def require_ray() -> ModuleType:
    try:
        import ray
    except ImportError:
        raise UsageError(INSTALL_HINT) from None
    return ray


class _Slot:
    def __init__(self, handle: ActorHandle, pid: int) -> None:
        self.handle, self.pid, self.load, self.dead = handle, pid, 0, False


class RayBackend:
    def __init__(
        self,
        browser_config: BrowserConfig,
        *,
        address: str | None = None,
        workers: int = 2,
        concurrency: int = 1,
        max_attempts: int = 3,
        env_vars: dict[str, str] | None = None,
        setup: Callable[[], None] | None = None,
        shared_runs_dir: str | None = None,
    ) -> None:
        """``concurrency`` tasks per worker; ``env_vars`` (API keys) reach the workers through Ray's runtime
        environment, never the results; ``setup`` runs first in every worker (e.g. registers test models);
        ``shared_runs_dir``: workers write run records there instead of sending them back."""
        self.ray = require_ray()
        self.browser_config, self.address = browser_config, address
        self.workers, self.concurrency = max(1, workers), max(1, concurrency)
        self.slots = self.workers * self.concurrency
        self.max_attempts, self.env_vars, self.setup = max(1, max_attempts), env_vars or {}, setup
        self.shared_runs_dir = shared_runs_dir
        self.pool: list[_Slot] = []
        self._started_ray = False
        self._reaper: subprocess.Popen[bytes] | None = None
        self._lock = asyncio.Lock()

    async def start(self) -> None:
        ray = self.ray
        if not ray.is_initialized():
            runtime_env = {"env_vars": self.env_vars} if self.env_vars else None
            ray.init(address=self.address, runtime_env=runtime_env, log_to_driver=False)
            self._started_ray = True
        self.pool = list(await asyncio.gather(*(self._spawn() for _ in range(self.workers))))
        if self._started_ray and self.address is None:
            self._reaper = _start_reaper()

    async def _spawn(self) -> _Slot:
        actor = self.ray.remote(BrowserWorker).options(max_concurrency=self.concurrency + 2, num_cpus=1)
        shared = self.shared_runs_dir is not None
        handle = actor.remote(self.browser_config, self.concurrency, self.setup, shared)
        pid = await handle.start.remote()
        return _Slot(handle, pid)

    def pids(self) -> list[int]:
        """The live workers' process ids."""
        return [s.pid for s in self.pool if not s.dead]

    async def _replace(self, slot: _Slot) -> None:
        async with self._lock:
            if slot.dead:
                return
            slot.dead = True
            self.pool.remove(slot)
            self.pool.append(await self._spawn())

    def _portable(self, job: Job) -> Job:
        """The job as a worker runs it: the driver's registered model object attached, the shared runs dir."""
        if self.shared_runs_dir is not None:
            run = job.config.run.model_copy(update={"runs_dir": self.shared_runs_dir})
            job = dataclasses.replace(job, config=job.config.model_copy(update={"run": run}))
        if job.model is None and (model := registered_model(job.config.llm)) is not None:
            job = dataclasses.replace(job, model=model)
        return job

    async def run(self, job: Job) -> TaskResult:
        from ray.exceptions import RayActorError

        why, sent = "", self._portable(job)
        for attempt in range(1, self.max_attempts + 1):
            slot = min((s for s in self.pool if not s.dead), key=lambda s: s.load)
            slot.load += 1
            ref: ObjectRef[Outcome] | None = None
            try:
                ref = slot.handle.run.remote(sent)
                outcome: Outcome = await ref
                result = await self._arrived(job, *outcome)
            except RayActorError as exc:  # the worker (and its browser) died: run it again elsewhere
                why = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
                await self._replace(slot)
                continue
            except asyncio.CancelledError:
                if ref is not None:
                    self.ray.cancel(ref)
                raise
            except (
                Exception
            ) as exc:  # the job did not pickle, a bug in the worker: a failed task, not a crash
                result = failed(job, exc)
            finally:
                slot.load -= 1
            result.attempts = attempt
            return result
        out = failed(job, f"the worker died {self.max_attempts} times: {why}")
        out.attempts = self.max_attempts
        return out

    async def _arrived(self, job: Job, result: TaskResult, archive: bytes | None) -> TaskResult:
        """The result, its run record unpacked into the driver's runs folder when it came along."""
        if archive is not None and result.run_dir:
            runs_dir = Path(job.config.run.runs_dir)
            result.run_dir = str(await asyncio.to_thread(unpack, archive, runs_dir, result.run_dir))
        return result

    async def close(self) -> None:
        for slot in self.pool:
            try:
                await asyncio.wait_for(slot.handle.close.remote(), 30)
            except Exception:
                pass
            self.ray.kill(slot.handle)
        self.pool = []
        if self._started_ray:
            self.ray.shutdown()
        if self._reaper is not None:  # Ray is down: nothing left to reap
            self._reaper.kill()
            self._reaper.wait()
            self._reaper = None


def _start_reaper() -> subprocess.Popen[bytes] | None:
    """Reap this machine's Ray if this driver dies (Linux: needs /proc)."""
    below = ray_reaper.descendants(os.getpid())
    if not below:
        return None
    return subprocess.Popen(
        [sys.executable, ray_reaper.__file__, str(os.getpid()), *(f"{p}:{t}" for p, t in below)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,  # not in the driver's group: a kill of the group leaves it to do its job
    )  # fmt: skip
