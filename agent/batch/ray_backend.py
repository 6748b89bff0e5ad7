"""The Ray backend: a pool of Ray actors, each owning one Chromium and running several tasks at once (one
browser context each), fed by the same ``BatchRunner`` as the local backend, so results, the results file,
resume and progress are the same.

A worker that dies mid-task (its process, its node) makes that task run again on another worker, up to
``max_attempts``; the result says how many attempts it took (``attempts``). Nothing is written by a worker:
results travel back to the driver, which appends them. Ray is optional (``pip install 'kite-agent[ray]'``).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import Any

from agent.batch.execute import failed
from agent.batch.jobs import Job
from agent.batch.results import TaskResult
from agent.config import BrowserConfig
from agent.errors import UsageError

INSTALL_HINT = "the Ray backend needs Ray: pip install 'kite-agent[ray]'"


def require_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise UsageError(INSTALL_HINT) from None
    return ray


class BrowserWorker:
    """One Ray actor: one Chromium, ``concurrency`` contexts (the local backend, in the worker's process)."""

    def __init__(
        self, browser_config: BrowserConfig, concurrency: int, setup: Callable[[], None] | None
    ) -> None:
        from agent.batch.local import LocalBackend

        self.backend = LocalBackend(browser_config, concurrency=concurrency)
        self.setup = setup

    async def start(self) -> int:
        """Start the browser; returns the worker's pid."""
        if self.setup is not None:
            self.setup()
        await self.backend.start()
        return os.getpid()

    async def run(self, job: Job) -> TaskResult:
        return await self.backend.run(job)

    async def close(self) -> None:
        await self.backend.close()


class _Slot:
    def __init__(self, handle: Any, pid: int) -> None:
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
    ) -> None:
        """``concurrency`` tasks per worker; ``env_vars`` (API keys) reach the workers through Ray's runtime
        environment, never the results; ``setup`` runs first in every worker (e.g. registers test models)."""
        self.ray = require_ray()
        self.browser_config, self.address = browser_config, address
        self.workers, self.concurrency = max(1, workers), max(1, concurrency)
        self.slots = self.workers * self.concurrency
        self.max_attempts, self.env_vars, self.setup = max(1, max_attempts), env_vars or {}, setup
        self.pool: list[_Slot] = []
        self._started_ray = False
        self._lock = asyncio.Lock()

    async def start(self) -> None:
        ray = self.ray
        if not ray.is_initialized():
            runtime_env = {"env_vars": self.env_vars} if self.env_vars else None
            ray.init(address=self.address, runtime_env=runtime_env, log_to_driver=False)
            self._started_ray = True
        self.pool = list(await asyncio.gather(*(self._spawn() for _ in range(self.workers))))

    async def _spawn(self) -> _Slot:
        actor = self.ray.remote(BrowserWorker).options(max_concurrency=self.concurrency + 2, num_cpus=1)
        handle = actor.remote(self.browser_config, self.concurrency, self.setup)
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

    async def run(self, job: Job) -> TaskResult:
        from ray.exceptions import RayActorError

        why = ""
        for attempt in range(1, self.max_attempts + 1):
            slot = min((s for s in self.pool if not s.dead), key=lambda s: s.load)
            slot.load += 1
            ref = slot.handle.run.remote(job)
            try:
                result: TaskResult = await ref
            except RayActorError as exc:  # the worker (and its browser) died: run it again elsewhere
                why = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
                await self._replace(slot)
                continue
            except asyncio.CancelledError:
                self.ray.cancel(ref)
                raise
            finally:
                slot.load -= 1
            result.attempts = attempt
            return result
        out = failed(job, f"the worker died {self.max_attempts} times: {why}")
        out.attempts = self.max_attempts
        return out

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
