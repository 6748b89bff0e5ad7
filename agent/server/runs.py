"""Agent runs over HTTP: several at once, each in its own browser context of the pool's shared Chromium
(launched at the first run, restarted by the pool if it died), each with an HTTP confirmer. Bad input is refused before anything
starts (``ApiError``: unknown model, bad start URL or domain, unknown secret, too many runs); what goes wrong
later (an unreachable start URL, the model failing) ends the run as ``failed`` with a typed ``error``."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets as _secrets
from pathlib import Path

from kite_browser.agent.base.errors import KiteError
from kite_browser.agent.browser.pool import BrowserPool
from kite_browser.agent.browser.profiles import ProfileLockedError, check_profile_unlocked, profile_dir
from kite_browser.agent.browser.session import BrowserSession, ContextSession
from kite_browser.agent.browser.start_url import check_start_url
from kite_browser.agent.config import KiteConfig, with_overrides
from kite_browser.agent.llm.resolve import ConfigPreparer, model_problem
from kite_browser.agent.run.output import check_schema
from kite_browser.agent.server.confirm import HttpConfirmer
from kite_browser.agent.server.errors import ApiError, ErrorBody
from kite_browser.agent.server.records import RunRecords
from kite_browser.agent.server.run import Run
from kite_browser.agent.server.run_models import RunRequest, RunSummary, RunView
from kite_browser.safety.confirm import check_approvals
from kite_browser.safety.secrets import SecretStore

log = logging.getLogger("kite.server")
KEEP_FINISHED = 200
"""Finished runs kept in memory (their records stay on disk)."""
STOP_WAIT_S = 30.0


class RunManager:
    def __init__(
        self,
        config: KiteConfig,
        secrets: SecretStore,
        *,
        prepare_config: ConfigPreparer | None = None,
        pool: BrowserPool | None = None,
    ) -> None:
        """``pool``: where the runs' browser comes from (the server's, shared with its modules; left open);
        None: a pool of its own, closed by ``close()``."""
        self.config, self.secrets, self.prepare_config = config, secrets, prepare_config
        self.runs: dict[str, Run] = {}
        self.records = RunRecords(config.run.runs_dir)
        """Runs on disk (of earlier servers, of kite run): listed and shown next to the live ones."""
        self._owns_pool = pool is None
        self.pool = pool or BrowserPool(config.browser)
        self.closing = False
        self.profiles: dict[str, str] = {}
        """The persistent profiles in use: name -> the id of the run using it (until its browser is closed)."""

    # ------------------------------------------------------------------ queries
    def get(self, run_id: str) -> Run:
        run = self.runs.get(run_id)
        if run is None:
            raise ApiError(404, "unknown_run", f"no run {run_id!r}", run=run_id)
        return run

    def view(self, run_id: str) -> RunView:
        """A run as GET shows it: a live one, else its record on disk (a typed 404 if neither)."""
        run = self.runs.get(run_id)
        if run is not None:
            return run.view()
        view = self.records.view(run_id)
        if view is None:
            raise ApiError(404, "unknown_run", f"no run {run_id!r}", run=run_id)
        return view

    def record_dir(self, run_id: str) -> Path:
        """The record folder of a run, live or on disk (a typed 404 if there is none)."""
        run = self.runs.get(run_id)
        folder = run.run_dir if run is not None else self.records.folder(run_id)
        if folder is None or not folder.is_dir():
            if run is None and self.records.folder(run_id) is None:
                raise ApiError(404, "unknown_run", f"no run {run_id!r}", run=run_id)
            raise ApiError(404, "no_record", f"run {run_id} has no record (yet)", run=run_id)
        return folder

    def summaries(self) -> list[RunSummary]:
        """Every run, live and on disk (once each: a live run's folder is not listed again), newest first."""
        live = list(self.runs.values())
        folders = {r.run_dir.name for r in live if r.run_dir is not None}
        out = [r.summary() for r in live]
        out += [s for s in self.records.summaries() if s.id not in folders and s.id not in self.runs]
        return sorted(out, key=lambda s: s.created_at, reverse=True)

    def active(self) -> list[Run]:
        return [r for r in self.runs.values() if not r.done]

    # ------------------------------------------------------------------ starting
    def _prepare(self, req: RunRequest) -> tuple[KiteConfig, SecretStore, str | None]:
        model = req.model or self.config.llm.model
        if not model:
            raise ApiError(400, "no_model", "no model: give 'model' or start kite serve with --model")
        problem = model_problem(model, self.prepare_config is not None)
        if problem:
            raise ApiError(400, "unknown_model", problem, model=model)
        try:
            start_url = check_start_url(req.start_url, self.config.browser, flag="start_url")
        except KiteError as exc:
            raise ApiError(400, "invalid_start_url", exc.message, start_url=req.start_url) from None
        over: dict[str, object] = {"llm.model": model}
        if req.profile is not None:
            self._profile_dir(req.profile)
            over["browser.profile"] = req.profile
        if req.max_steps is not None:
            over["agent.max_steps"] = req.max_steps
        if req.allowed_domains is not None:
            over["safety.allowed_domains"] = list(req.allowed_domains)
        if req.approve is not None:
            try:
                check_approvals(req.approve)
            except KiteError as exc:
                raise ApiError(400, "invalid_approve", exc.message) from None
            over["safety.approve"] = list(req.approve)
        if req.vision is not None:
            over["llm.vision"] = req.vision
        if req.output_schema is not None:
            try:
                check_schema(req.output_schema)
            except KiteError as exc:
                raise ApiError(400, "invalid_output_schema", exc.message) from None
        try:
            config = with_overrides(self.config, over)
        except KiteError as exc:
            raise ApiError(400, "invalid_value", exc.message) from None
        unknown = sorted(set(req.secrets) - set(self.secrets.names()))
        if unknown:
            raise ApiError(
                400,
                "unknown_secret",
                f"the server has no secret named {', '.join(map(repr, unknown))}",
                available=self.secrets.names(),
            )
        return config, self.secrets.only(req.secrets), start_url

    def _profile_dir(self, name: str) -> Path:
        """The folder of profile ``name``: a typed 422 ``invalid_profile`` for a name that is no folder name of
        ours (empty, a path, ``..``), 400 ``profile_unsupported`` when the server attaches to a running Chrome."""
        if self.config.browser.attach:
            raise ApiError(
                400,
                "profile_unsupported",
                "this server attaches to a running Chrome (browser.attach): a run cannot have a profile",
                profile=name,
            )
        try:
            return profile_dir(self.config.data_dir(), name)
        except KiteError as exc:
            raise ApiError(422, "invalid_profile", exc.message, profile=name) from None

    def _check_profile_free(self, name: str) -> None:
        """A typed 409 ``profile_in_use`` when a run of this server, or another Chrome, has profile ``name``
        open (launching on it would hang, or two browsers would write one profile)."""
        holder = self.profiles.get(name)
        if holder is not None:
            raise ApiError(
                409,
                "profile_in_use",
                f"the profile {name!r} is in use by run {holder}: wait until it ends, or choose another profile",
                profile=name,
                run=holder,
            )
        try:
            check_profile_unlocked(self._profile_dir(name))
        except ProfileLockedError as exc:
            raise ApiError(409, "profile_in_use", exc.message, profile=name) from None

    async def start(self, req: RunRequest, traceparent: str | None = None) -> Run:
        """``traceparent``: the caller's W3C trace context (the request's header): the run's spans join it."""
        if self.closing:
            raise ApiError(503, "shutting_down", "the server is shutting down")
        if len(self.active()) >= self.config.server.max_runs:
            limit = self.config.server.max_runs
            raise ApiError(429, "too_many_runs", f"{limit} runs are going already (server.max_runs)")
        config, secrets, start_url = self._prepare(req)
        if traceparent:
            config = with_overrides(config, {"telemetry.traceparent": traceparent})
        if req.profile is not None:
            self._check_profile_free(req.profile)
        run = Run(
            _secrets.token_hex(5),
            req,
            model=config.llm.model or "",
            max_steps=config.agent.max_steps,
            domains=list(config.safety.allowed_domains),
        )
        self.runs[run.id] = run
        if req.profile is not None:
            self.profiles[req.profile] = run.id  # no await since the check: no other start came between
        self._forget_old()
        confirmer = HttpConfirmer(
            run,
            timeout_s=self.config.server.confirm_timeout_s,
            approve=config.safety.approve,
            secrets=secrets,
        )
        run.task = asyncio.create_task(self._execute(run, config, secrets, confirmer, start_url))
        return run

    def _forget_old(self) -> None:
        finished = [r for r in self.runs.values() if r.done]
        for run in finished[: max(0, len(finished) - KEEP_FINISHED)]:
            del self.runs[run.id]

    async def _browser(self, run: Run, config: KiteConfig) -> tuple[ContextSession, BrowserSession | None]:
        """Where the run acts: a new context of the pool's shared browser, or with a profile a browser of its
        own from the pool (its persistent context; ``config.browser.profile``), closed when the run ends."""
        if run.request.profile is None:
            return await self.pool.context(), None
        session = await self.pool.session(config.browser)
        return session.context, session

    async def _execute(
        self, run: Run, config: KiteConfig, secrets: SecretStore, confirmer: HttpConfirmer, start: str | None
    ) -> None:
        from kite_browser.agent.run.loop import Agent
        from kite_browser.agent.workflow.cache import CachedRun

        ctx: ContextSession | None = None
        session: BrowserSession | None = None
        failure: ErrorBody | None = None
        try:
            if self.prepare_config is not None:
                config = await self.prepare_config(config)
            ctx, session = await self._browser(run, config)
            run.context = ctx
            runner = CachedRun if run.request.cache else Agent  # the same arguments: one runs the other
            agent = runner(
                config,
                confirmer=confirmer,
                context=ctx,
                secrets=secrets,
                on_event=run.on_event,
                label=run.id,
                output_type=run.request.output_schema,
            )
            await agent.run(run.request.task, start_url=start)
        except asyncio.CancelledError:
            pass  # stopped: the agent saved its record and reported the end
        except KiteError as exc:
            failure = ErrorBody(error=exc.type, message=exc.message)
        except Exception as exc:
            log.exception("run %s failed", run.id)
            failure = ErrorBody(error="internal_error", message=f"internal error: {exc!r}")
        finally:
            run.context = None
            with contextlib.suppress(Exception):
                if session is not None:
                    await session.close()  # the profile's lock released before the run is seen to end
                elif ctx is not None:
                    await ctx.close()
            if run.request.profile is not None and self.profiles.get(run.request.profile) == run.id:
                del self.profiles[run.request.profile]
            run.close(failure)

    # ------------------------------------------------------------------ stopping
    async def stop(self, run: Run) -> None:
        """Stop ``run`` (no-op when it is over) and wait until its record is saved."""
        if run.done or run.task is None:
            return
        run.stop_requested = True
        run.task.cancel()
        await asyncio.wait([run.task], timeout=STOP_WAIT_S)

    async def stop_all(self) -> None:
        self.closing = True
        await asyncio.gather(*(self.stop(r) for r in self.active()), return_exceptions=True)

    async def close(self) -> None:
        try:
            await self.stop_all()
        finally:
            if self._owns_pool:
                with contextlib.suppress(Exception):
                    await self.pool.close()
