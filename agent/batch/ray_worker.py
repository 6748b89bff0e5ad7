"""One worker of the Ray backend (agent/batch/ray_backend.py), a Ray actor: one Chromium with several contexts
(the local backend, in the worker's process).

Two things happen on the worker's own node rather than the driver's:

- the bundled local model (``llm.model: local``) is started there, or the one already serving that node
  is shared (agent/llm/local_server.py: one server per data dir and machine, shared by every worker on it);
- run records are written there: into a scratch folder, packed (a zip) and sent back with the result for the driver
  to unpack (agent/batch/records.py), or, with ``batch.ray.shared_runs_dir``, straight into that shared
  folder (nothing is sent back).

This module imports neither Ray nor a browser at import time; the class runs as a plain object in tests.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import os
import secrets
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from kite_browser.agent.batch.execute import failed
from kite_browser.agent.batch.jobs import Job, register_models
from kite_browser.agent.batch.records import pack
from kite_browser.agent.batch.results import TaskResult
from kite_browser.agent.config import BrowserConfig

if TYPE_CHECKING:
    from kite_browser.agent.llm.local import LocalServer

Outcome = tuple[TaskResult, bytes | None]
"""A task's result, and its packed run record when it is sent back (None: written in place, or none)."""


class BrowserWorker:
    def __init__(
        self,
        browser_config: BrowserConfig,
        concurrency: int,
        setup: Callable[[], None] | None = None,
        shared_runs: bool = False,
    ) -> None:
        """``shared_runs``: the jobs' ``run.runs_dir`` is a folder the driver sees; write records there."""
        from kite_browser.agent.batch.local import LocalBackend

        self.backend = LocalBackend(browser_config, concurrency=concurrency)
        self.setup, self.shared_runs = setup, shared_runs
        self.scratch: Path | None = None
        self.servers: dict[Path, LocalServer] = {}
        """The local model server this worker uses, per data dir."""
        self._servers_lock = asyncio.Lock()

    async def start(self) -> int:
        """Start the browser; returns the worker's pid. The agent's modules (litellm among them: seconds) are
        imported here, so that the first tasks do not wait for them."""
        for module in ("kite_browser.agent.run.loop", "kite_browser.agent.llm.fakes"):
            importlib.import_module(module)
        if self.setup is not None:
            self.setup()
        if not self.shared_runs:
            self.scratch = Path(tempfile.mkdtemp(prefix="kite-ray-runs-"))
        await self.backend.start()
        return os.getpid()

    async def run(self, job: Job) -> Outcome:
        register_models([job])  # the kite/ fakes' litellm provider, as the driver has it
        try:
            job = await self._on_this_node(job)
        except Exception as exc:  # e.g. the local model could not start here
            return failed(job, exc), None
        if self.shared_runs or self.scratch is None:
            return await self.backend.run(job), None
        folder = self.scratch / secrets.token_hex(4)
        run = job.config.run.model_copy(update={"runs_dir": str(folder)})
        job = dataclasses.replace(job, config=job.config.model_copy(update={"run": run}))
        try:
            result = await self.backend.run(job)
            archive = await asyncio.to_thread(pack, Path(result.run_dir)) if result.run_dir else None
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return result, archive

    async def _on_this_node(self, job: Job) -> Job:
        """The job, with the bundled local model (if it names it) served on this node."""
        from kite_browser.agent.llm.local import config_for_server, ensure_local_server
        from kite_browser.agent.llm.local_watchdog import alive
        from kite_browser.agent.llm.model_names import is_local

        if not is_local(job.config.llm.model):
            return job
        async with self._servers_lock:
            key = job.config.data_dir()
            server = self.servers.get(key)
            if server is None or not alive(server.pid):
                server = self.servers[key] = await ensure_local_server(job.config, progress=False)
        return dataclasses.replace(job, config=config_for_server(job.config, server))

    async def close(self) -> None:
        from kite_browser.agent.llm.local_install import LocalPaths
        from kite_browser.agent.llm.local_server import release

        try:
            await self.backend.close()
        finally:
            for data_dir in self.servers:  # the last worker of the node out stops the server
                release(LocalPaths.for_data_dir(data_dir))
            self.servers.clear()
            if self.scratch is not None:
                shutil.rmtree(self.scratch, ignore_errors=True)
