"""The task cache (issue 32, item 4): ``kite run TASK --cache`` records a successful run as a workflow and the
next run of the same task replays it — no model call while every step is found — healing with the run's
model when the page changed (agent/workflow/heal.py: the step only, or the agent from the current page), and a
successful run refreshes the entry.

An entry is keyed on the normalised task text (case and spacing), the start URL's host and path, and the
variables; it lives in Kite's data dir (``config.cache_dir()``, ``kite cache list | show | clear``) as two
files: ``<key>.yaml`` (the workflow: secrets by name only, never values) and ``<key>.json`` (what it was made
from, and the model calls the recorded run made: what a replay saves).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict, Unpack
from urllib.parse import urlsplit

from pydantic import BaseModel, Field

from kite_browser.agent.base.errors import KiteError, UsageError
from kite_browser.agent.base.events import EventSink, RunEvent, RunFinished, RunStarted, emit
from kite_browser.agent.base.result import RunResult
from kite_browser.agent.browser.env import BrowserEnv, EnvSafety
from kite_browser.agent.browser.pool import BrowserPool
from kite_browser.agent.config import KiteConfig
from kite_browser.agent.llm.model import Model
from kite_browser.agent.protocols import Environment
from kite_browser.agent.run.loop import Agent
from kite_browser.agent.run.output import OutputType
from kite_browser.agent.run.record import RunRecorder
from kite_browser.agent.run.stop import StopWhen
from kite_browser.agent.workflow.heal import Healer
from kite_browser.agent.workflow.model import Workflow, dump_workflow, load_workflow
from kite_browser.agent.workflow.replay import Replayer
from kite_browser.agent.workflow.save import workflow_from_run

if TYPE_CHECKING:
    from kite_browser.agent.browser.session import ContextSession
    from kite_browser.safety.confirm import Confirmer
    from kite_browser.safety.secrets import SecretStore


def normalise(task: str) -> str:
    """The task as the key reads it: case-folded, spacing collapsed, a final full stop dropped."""
    return " ".join(task.split()).casefold().rstrip(".!")


def where(start_url: str | None) -> str:
    """The start URL's host and path (its scheme, port, query and fragment left out)."""
    if not start_url:
        return ""
    parts = urlsplit(start_url)
    return f"{parts.hostname or ''}{parts.path or '/'}"


def cache_key(task: str, start_url: str | None, variables: Mapping[str, str] | None = None) -> str:
    data = {
        "task": normalise(task),
        "where": where(start_url),
        "variables": dict(sorted((variables or {}).items())),
    }
    return hashlib.sha256(json.dumps(data, ensure_ascii=False).encode()).hexdigest()[:16]


class CacheEntry(BaseModel):
    """What an entry was made from (``<key>.json`` beside the workflow)."""

    key: str
    task: str
    start_url: str | None = None
    variables: dict[str, str] = Field(default_factory=dict)
    model_calls: int = 0
    """The model calls of the run the entry was recorded from: what a replay with none saves."""
    steps: int = 0
    created_at: str = ""
    updated_at: str = ""
    replays: int = 0
    """Runs served from the entry since it was made."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class TaskCache:
    """The entries in ``folder`` (``TaskCache.of(config)``: the config's cache dir)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @classmethod
    def of(cls, config: KiteConfig) -> TaskCache:
        return cls(config.cache_dir())

    def _meta(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def workflow_path(self, key: str) -> Path:
        return self.folder / f"{key}.yaml"

    def get(self, key: str) -> tuple[CacheEntry, Workflow] | None:
        """The entry and its workflow; None when there is none (or it cannot be read: it is made again)."""
        try:
            entry = CacheEntry.model_validate_json(self._meta(key).read_text(encoding="utf-8"))
            return entry, load_workflow(self.workflow_path(key))
        except (OSError, ValueError, KiteError):
            return None

    def put(self, entry: CacheEntry, wf: Workflow) -> CacheEntry:
        self.folder.mkdir(parents=True, exist_ok=True)
        entry = entry.model_copy(update={"steps": len(wf.steps), "updated_at": _now()})
        for path, text in (
            (self.workflow_path(entry.key), dump_workflow(wf)),
            (self._meta(entry.key), entry.model_dump_json(indent=2)),
        ):
            tmp = path.with_suffix(path.suffix + ".tmp")
            tmp.write_text(text, encoding="utf-8")
            tmp.replace(path)
        return entry

    def entries(self) -> list[CacheEntry]:
        out = []
        for meta in sorted(self.folder.glob("*.json")) if self.folder.is_dir() else []:
            with contextlib.suppress(OSError, ValueError):
                out.append(CacheEntry.model_validate_json(meta.read_text(encoding="utf-8")))
        return sorted(out, key=lambda e: e.updated_at, reverse=True)

    def find(self, prefix: str) -> CacheEntry:
        """The one entry whose key starts with ``prefix`` (a usage error when none or several do)."""
        if not re.fullmatch(r"[0-9a-f]{1,16}", prefix):
            raise UsageError(f"{prefix!r} is not a cache key: kite cache list shows them (16 hex digits)")
        found = [e for e in self.entries() if e.key.startswith(prefix)]
        if not found:
            raise UsageError(f"no cache entry {prefix} in {self.folder} (kite cache list shows them)")
        if len(found) > 1:
            raise UsageError(f"{len(found)} cache entries start with {prefix}: give more of the key")
        return found[0]

    def remove(self, key: str) -> None:
        for path in (self._meta(key), self.workflow_path(key)):
            path.unlink(missing_ok=True)

    def clear(self) -> int:
        entries = self.entries()
        for e in entries:
            self.remove(e.key)
        return len(entries)


@contextlib.asynccontextmanager
async def _environment(
    config: KiteConfig,
    safety: EnvSafety,
    run_dir: Path,
    env: Environment | None,
    context: ContextSession | None,
) -> AsyncIterator[Environment]:
    """The replay's env: the one given, one over the given context (both left open), or a browser of its own."""
    if env is not None:
        yield env
    elif context is not None:
        yield BrowserEnv(config, context, safety)
    else:
        async with BrowserPool(config.browser, downloads_dir=run_dir / "downloads") as pool:
            made = await BrowserEnv.open(pool, config, safety, run_dir=run_dir, default=True)
            try:
                yield made
            finally:
                await made.close()


class AgentOptions(TypedDict, total=False):
    """More of ``Agent``'s own options, for the agent's run when there is no cache entry yet."""

    output_type: OutputType
    stop_when: StopWhen | None
    tools: Sequence[Callable[..., object]]


class CachedRunOptions(AgentOptions, total=False):
    """What ``run_cached`` passes on to ``CachedRun``."""

    model: Model | None
    confirmer: Confirmer | None
    secrets: SecretStore | None
    on_event: EventSink | None
    env: Environment | None
    context: ContextSession | None
    label: str | None


class CachedRun:
    """Runs tasks through the cache: an entry's workflow replayed (healing with ``model``, default the
    config's) when there is one, else the agent's run, saved as the entry when it succeeds. ``env`` /
    ``context``: where to act (left open), as ``Agent`` takes them; default a browser of its own per run."""

    def __init__(
        self,
        config: KiteConfig,
        *,
        model: Model | None = None,
        confirmer: Confirmer | None = None,
        secrets: SecretStore | None = None,
        on_event: EventSink | None = None,
        env: Environment | None = None,
        context: ContextSession | None = None,
        label: str | None = None,
        **agent_options: Unpack[AgentOptions],
    ) -> None:
        """``agent_options``: more of ``Agent``'s own (``output_type``, ``stop_when``, ``tools``) for the
        agent's run when there is no entry yet."""
        self.config, self.model, self.on_event, self.label = config, model, on_event, label
        self.agent_options = agent_options
        self.confirmer, self.secrets, self.env, self.context = confirmer, secrets, env, context
        self.cache = TaskCache.of(config)

    async def run(
        self, task: str, start_url: str | None = None, *, variables: Mapping[str, str] | None = None
    ) -> RunResult:
        key = cache_key(task, start_url, variables)
        found = self.cache.get(key)
        if found is None:
            return await self._record(key, task, start_url, variables)
        entry, wf = found
        config = self.config
        env = self.env
        safety = (
            env.safety if env is not None else EnvSafety.from_config(config, self.confirmer, self.secrets)
        )
        recorder = RunRecorder.create(config.run.runs_dir, safety.secrets.redact_obj, self.label or "cache")
        healer = Healer(config, self.model, task=task, on_event=_inner(self.on_event))
        replayer = Replayer(
            wf,
            values={k: v for k, v in (variables or {}).items() if k in wf.variables},
            start_url=start_url,
            recorder=recorder,
            healer=healer,
            recorded_calls=entry.model_calls,
            source=f"cache entry {key}",
        )
        model = healer.model_name or ""
        await emit(self.on_event, RunStarted(task=task, model=model, run_dir=str(recorder.run_dir)))
        async with _environment(config, safety, recorder.run_dir, env, self.context) as here:
            await here.start(recorder.run_dir)
            try:
                out = await replayer.run(here)
            finally:
                await here.stop()
        if out.success and out.healed is not None:  # what ran, healed steps and all, is the entry now
            self.cache.put(entry.model_copy(update={"replays": entry.replays + 1}), out.healed)
        result = replayer.result
        await emit(self.on_event, RunFinished(step=result.steps, result=result))
        return result

    async def _record(
        self, key: str, task: str, start_url: str | None, variables: Mapping[str, str] | None
    ) -> RunResult:
        """No entry yet: the agent runs, and its run becomes the entry when it succeeds."""
        if self.env is not None:
            agent = Agent(
                self.config, model=self.model, env=self.env, on_event=self.on_event, label=self.label
            )
        else:
            agent = Agent(
                self.config,
                model=self.model,
                confirmer=self.confirmer,
                secrets=self.secrets,
                context=self.context,
                on_event=self.on_event,
                label=self.label,
                **self.agent_options,
            )
        result = await agent.run(task, start_url=start_url)
        if not result.success or result.run_dir is None:
            return result
        try:
            wf = workflow_from_run(result.run_dir)
        except KiteError as exc:  # a run with no action to replay (it only read the page)
            result.message = f"{result.message} (not cached: {exc})".strip()
            return result
        entry = CacheEntry(
            key=key,
            task=task,
            start_url=start_url,
            variables=dict(variables or {}),
            model_calls=result.model_calls or 0,
            created_at=_now(),
        )
        self.cache.put(entry, wf)
        return result


def _inner(sink: EventSink | None) -> EventSink | None:
    """The events of a model's run inside a replay (a healed step, the agent taking over) for ``sink``:
    their steps, not their own start and finish (the replay is the run that starts and ends)."""
    if sink is None:
        return None

    async def inner(event: RunEvent) -> None:
        if not isinstance(event, RunStarted | RunFinished):
            await emit(sink, event)

    return inner


async def run_cached(
    config: KiteConfig,
    task: str,
    start_url: str | None = None,
    *,
    variables: Mapping[str, str] | None = None,
    **options: Unpack[CachedRunOptions],
) -> RunResult:
    """One task through the cache (``CachedRun(config, **options).run(task, start_url, variables=...)``)."""
    return await CachedRun(config, **options).run(task, start_url, variables=variables)
