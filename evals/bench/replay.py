"""Record the sites suite with the oracle, then replay every task's workflow with no model (issue 32).

    python -m kite_browser.evals.bench.replay [--tasks a,b] [--concurrency N] [--variants 1,2,3] [--json]

1. each task of the ``sites`` suite run by the agent loop with the oracle (``kite eval``'s job, its context
   and check), recorded, saved as a workflow (agent/workflow/save.py) and **at once** replayed in a fresh
   context on the same sites (the suite's own approvals and secrets: the same gate), then scored by the
   task's own check. A check's ``answer`` / ``data`` parts are what the model reads off the page, which a
   replay does not do: those parts are left out, and such tasks are counted apart (``answer_tasks``);
2. the replay's wall time against the agent run's, like for like (both from opening the start URL to the
   last action: no context to open, no check), measured (the oracle answers at once) and with a model that
   answers in 1 s (the run plus 1 s per model call: an estimate). Each task's replay runs right after its
   agent run, so a change of load moves both: the ratio is given per task, and its median and quartiles
   next to the ratio of the sums;
4. the same workflows (recorded on variant 0) replayed with no model on the page variants (``--variants``,
   evals/sites/variants.py: ids renamed, lists reordered, synonyms, a product on page 2, a cookie banner),
   per variant: the success rate, the model calls, where the replay stopped (a target not found, or two
   alike: never guessed), and **the wrong-element check**: the sites are served with their hidden
   ``data-kite-mark`` markers (the same on every variant; no replay code reads them: the fingerprint takes
   named attributes only), each action's element is read as the action goes to the environment, and
   compared with the task's own element for that step — its variant-0 id or link from the recorded
   fingerprint, else where the replay on variant 0 landed (a cookie banner's button, marked ``consent:*``,
   counts as closing a banner, which the replay reports; one pressed as a step is a wrong element). One
   action on another element makes the bench exit 1;
5. with ``--heal``, the same replays on each variant again with a healing model — the oracle, through the
   environment (agent/workflow/heal.py: a step the replay cannot do is done by the model, following the
   task's plan from the replayed history; when it cannot, it takes the task over) — per variant the success
   rate (goal 100%), the model calls, and the steps replayed / healed / done by the agent.

Prints a table per task and the totals; ``--json`` one object (keys with their unit).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, cast

from playwright.async_api import Error as PlaywrightError

from kite_browser.agent.base.errors import KiteError
from kite_browser.agent.batch.checks import evaluate
from kite_browser.agent.batch.execute import run_job
from kite_browser.agent.batch.jobs import Job
from kite_browser.agent.batch.results import TaskResult
from kite_browser.agent.browser.actions import Action
from kite_browser.agent.browser.env import Acted, BrowserEnv, EnvSafety
from kite_browser.agent.browser.observation import Fingerprint, Observation
from kite_browser.agent.browser.pool import BrowserPool
from kite_browser.agent.config import KiteConfig, load_config
from kite_browser.agent.run.record import RunRecorder
from kite_browser.agent.workflow.errors import RunNotSavableError
from kite_browser.agent.workflow.heal import Healer
from kite_browser.agent.workflow.model import Workflow
from kite_browser.agent.workflow.replay import Replayer
from kite_browser.agent.workflow.save import workflow_from_run
from kite_browser.evals.harness import _Servers, suite_jobs
from kite_browser.evals.sites.variants import MARK
from kite_browser.evals.tasks import Suite, find_suite, load_suite
from kite_browser.safety.confirm import BY_TASK, BatchConfirmer

MODEL_S = 1.0
"""The model latency the comparison assumes (issue 32: a model that answers in 1 s)."""
GOAL_RATE = 0.8
"""Issue 32: replay with no model succeeds on at least 80% of the tasks of each variant."""


@dataclass
class Row:
    id: str
    agent_ok: bool
    agent_steps: int
    agent_s: float
    """The agent's task: its context, its run and its check."""
    agent_run_s: float = 0.0
    """The agent's run alone: from opening the start URL to its last step (what ``replay_s`` times)."""
    agent_calls: int = 0
    """The agent run's model calls."""
    replay_ok: bool = False
    steps: int = 0
    replay_s: float = 0.0
    model_calls: int = 0
    answer_task: bool = False
    why: str = ""
    stop: str = ""
    """The type of the error that stopped the replay (``replay_target_not_found`` ...), empty if none."""
    marks: list[str | None] = field(default_factory=list)
    """Per action sent to the environment, the hidden marker of its element (None: unmarked or no element)."""
    wrong: list[str] = field(default_factory=list)
    """Actions that landed on another element than the task's own: ``step 2: on X, not Y``."""
    unverified: int = 0
    """Element actions whose own element is not known (no id or link recorded, not reached on variant 0)."""
    banners: int = 0
    """Cookie banners the replay closed on the way (variant 3; agent/workflow/banner.py)."""
    steps_by: dict[str, int] = field(default_factory=dict)
    """With a healing model: the steps replayed, healed, and done by the agent."""


class _Marking:
    """The environment, reading the hidden marker of each action's element as the action goes to ``act``
    (outside the replay: the replay never sees the marker)."""

    def __init__(self, env: BrowserEnv, marks: list[str | None]) -> None:
        self._env, self._marks = env, marks
        self.spent_s = 0.0
        """Time spent reading markers: the bench's, not the replay's (taken off its wall time)."""

    def __getattr__(self, name: str) -> Any:
        return getattr(self._env, name)

    async def act(self, action: Action, observation: Observation | None = None, **kw: Any) -> Acted:
        index = action.target_index if action.action != "switchTab" else None
        mark, started = None, time.monotonic()
        if isinstance(index, int):
            try:
                resolved = await self._env.snapshotter.resolve(self._env.ctx.page, index)
                mark = await resolved.handle.get_attribute(MARK)
            except (KiteError, PlaywrightError):  # an element gone is simply unmarked
                mark = None
        self._marks.append(mark if isinstance(index, int) else "-")
        self.spent_s += time.monotonic() - started
        return await self._env.act(action, observation, **kw)


def own_mark(target: Fingerprint | None) -> str | None:
    """The marker of a recorded step's element, from its fingerprint on variant 0: its id, else a link's
    href (the markers the variant server gives them); None when the fingerprint does not say."""
    if target is None:
        return None
    if target.attrs.get("id"):
        return target.attrs["id"]
    if target.tag == "a" and target.attrs.get("href"):
        return "href:" + target.attrs["href"]
    return None


def saved(task: TaskResult) -> tuple[Workflow | None, str]:
    """The agent's run as a workflow, or why there is none."""
    if not task.success:
        return None, "the agent's run failed its check: nothing to save"
    try:
        return workflow_from_run(task.run_dir or "", require_success=False), ""  # the task's check passed
    except RunNotSavableError as exc:
        return None, f"not saved: {exc.message}"


async def replay_one(
    pool: BrowserPool,
    job: Job,
    task: TaskResult,
    wf: Workflow | None,
    why: str,
    folder: Path,
    heal: bool = False,
) -> Row:
    row = Row(task.id, task.success, task.steps, task.wall_s, task.duration_s, task.model_calls or task.steps)
    check = job.task.check
    row.answer_task = check is not None and (check.answer is not None or check.data is not None)
    if wf is None:
        row.why = why
        return row
    row.steps = len(wf.steps)
    confirmer = BatchConfirmer(job.approve, allow=BY_TASK)
    safety = EnvSafety.from_config(job.config, confirmer, job.secrets)
    run_dir = folder / task.id
    env = await BrowserEnv.open(pool, job.config, safety, run_dir=run_dir)
    try:
        await env.start(run_dir)
        recorder = RunRecorder(run_dir, job.secrets.redact_obj)
        probe = _Marking(env, row.marks)
        healer = Healer(job.config, job.model, task=job.task.task) if heal else None
        replayer = Replayer(wf, start_url=job.task.start_url, recorder=recorder, healer=healer)
        out = await replayer.run(cast(BrowserEnv, probe))
        row.replay_s = round(out.wall_s - probe.spent_s, 3)
        row.model_calls, row.banners = out.model_calls, out.banners
        row.steps_by = replayer.result.steps_by or {}
        if out.error is not None:
            row.stop = out.error.type
            row.why = f"{out.error.type}: {out.error.message}"[:200]
        elif not out.success:  # the agent took over and did not finish the task
            row.why = replayer.result.message[:200]
        elif check is not None:
            page_part = check.model_copy(update={"answer": None, "data": None})
            verdict = await evaluate(page_part, env.ctx, run_dir=str(run_dir), base_url=job.task.start_url)
            row.why = "; ".join(verdict.failures)[:200]
        row.replay_ok = out.success and not row.why
    finally:
        await env.close()
    return row


def judge(row: Row, wf: Workflow | None, base: Row | None) -> None:
    """Fill ``row.wrong`` and ``row.unverified``: each action's element against the task's own (``base``:
    the same workflow replayed on variant 0). An element the sites do not mark (made by a page's script)
    is unverified, unless the task's own one is marked."""
    if wf is None:
        return
    pressed = [m for m in row.marks if (m or "").startswith("consent:")]
    if len(pressed) != row.banners:  # a cookie button pressed as a workflow step: not the task's element
        row.wrong.append(f"{len(pressed)} cookie button(s) pressed, {row.banners} banner(s) closed")
    marks = [m for m in row.marks if not (m or "").startswith("consent:")]
    base_marks = [m for m in base.marks if not (m or "").startswith("consent:")] if base else []
    for i, landed in enumerate(marks):
        if landed == "-" or i >= len(wf.steps):
            continue
        seen = base_marks[i] if i < len(base_marks) and base_marks[i] != "-" else None
        own = own_mark(wf.steps[i].target) or seen
        if landed is None and seen is None:
            row.unverified += 1
        elif own is None:
            row.unverified += 1
        elif landed != own:
            row.wrong.append(f"step {i + 1}: on {landed or 'an unmarked element'}, not {own}")


def with_model_s(row: Row) -> float:
    """The agent's run as it would take with a model answering in ``MODEL_S``: the run plus that per call."""
    return row.agent_run_s + MODEL_S * row.agent_calls


def ratios(rows: list[Row]) -> dict[str, Any]:
    """Per task, the replay's wall time over the agent run's with a 1-s model: median and quartiles."""
    each = sorted(r.replay_s / with_model_s(r) for r in rows if r.replay_ok and with_model_s(r) > 0)
    if not each:
        return {}
    q = statistics.quantiles(each, n=4) if len(each) > 1 else [each[0]] * 3
    return {
        "replay_vs_agent_1s_model_ratio_per_task_median": round(statistics.median(each), 3),
        "replay_vs_agent_1s_model_ratio_per_task_q1_q3": [round(q[0], 3), round(q[2], 3)],
        "tasks_at_or_under_one_fifth": f"{sum(x <= 0.2 for x in each)}/{len(each)}",
    }


def summary(rows: list[Row], record_s: float) -> dict[str, Any]:
    done = [r for r in rows if r.replay_ok]
    nothing = [r for r in rows if "no action to replay" in r.why]
    agent = sum(r.agent_run_s for r in done)
    agent_1s = sum(with_model_s(r) for r in done)
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
        "model_calls_agent": sum(r.agent_calls for r in rows),
        "record_and_replay_wall_s": round(record_s, 1),
        "agent_task_median_s": round(statistics.median([r.agent_s for r in done]), 2) if done else None,
        "agent_run_median_s": round(statistics.median([r.agent_run_s for r in done]), 2) if done else None,
        "replay_task_median_s": round(statistics.median([r.replay_s for r in done]), 2) if done else None,
        "replay_vs_agent_ratio": round(replay / agent, 3) if agent else None,
        "replay_vs_agent_1s_model_ratio": round(replay / agent_1s, 3) if agent_1s else None,
        **ratios(done),
    }


def variant_summary(rows: list[Row]) -> dict[str, Any]:
    """One variant's replays: success, stops by kind, and where the actions landed."""
    replayable = [r for r in rows if r.steps and "no action to replay" not in r.why]
    done = [r for r in replayable if r.replay_ok]
    stops: dict[str, int] = {}
    for r in replayable:
        if r.stop:
            stops[r.stop] = stops.get(r.stop, 0) + 1
    element_actions = sum(1 for r in rows for m in r.marks if m != "-")
    wrong = sum(len(r.wrong) for r in rows)
    return {
        "replayable_tasks": len(replayable),
        "replay_successes": len(done),
        "replay_success_rate": round(len(done) / len(replayable), 3) if replayable else 0.0,
        "goal_met": bool(replayable) and len(done) / len(replayable) >= GOAL_RATE,
        "model_calls": sum(r.model_calls for r in rows),
        "stopped_not_found": stops.get("replay_target_not_found", 0),
        "stopped_ambiguous": stops.get("replay_ambiguous_target", 0),
        "stopped_other": sum(
            n for k, n in stops.items() if k not in ("replay_target_not_found", "replay_ambiguous_target")
        ),
        "check_failed_after_replay": sum(1 for r in replayable if not r.stop and not r.replay_ok),
        "cookie_banners_closed": sum(r.banners for r in rows),
        "element_actions": element_actions,
        "element_actions_verified": element_actions - sum(r.unverified for r in rows),
        "wrong_element_actions": wrong,
    }


async def record_and_replay(
    suite: Suite, config: KiteConfig, ids: list[str] | None, concurrency: int, root: Path
) -> tuple[list[TaskResult], dict[str, tuple[Workflow | None, str]], list[Row]]:
    """Each task run by the agent (as ``kite eval`` runs it: a context of its own, the task's check), saved as
    a workflow and replayed right away on the same sites (variant 0, with the markers): the agent's run and
    its replay a few seconds apart, so a change of load moves both."""
    suite.sites_variant = 0
    servers = _Servers(marks=True)
    gate = asyncio.Semaphore(concurrency)
    try:
        jobs = await suite_jobs(suite, config, servers, ids=ids)
        async with BrowserPool(config.browser, downloads_dir=root / "downloads") as pool:

            async def one(job: Job) -> tuple[TaskResult, tuple[Workflow | None, str], Row]:
                async with gate:
                    started = time.monotonic()
                    ctx = await pool.context(downloads_dir=root / "downloads")
                    try:
                        task = await run_job(job, ctx, started)
                    finally:
                        await ctx.close()
                    wf = saved(task)
                    print(
                        f"[{job.position}] {'ok' if task.success else 'FAIL'} {task.id}",
                        file=sys.stderr,
                        flush=True,
                    )
                    return task, wf, await replay_one(pool, job, task, *wf, root / "replays-v0")

            out = await asyncio.gather(*(one(j) for j in jobs))
    finally:
        servers.stop()
    return [t for t, _, _ in out], {t.id: wf for t, wf, _ in out}, [r for _, _, r in out]


async def replay_all(
    suite: Suite,
    config: KiteConfig,
    variant: int,
    tasks: list[TaskResult],
    workflows: dict[str, tuple[Workflow | None, str]],
    concurrency: int,
    root: Path,
    heal: bool = False,
) -> list[Row]:
    """Every task's workflow replayed on ``variant`` of the sites (served with their markers); ``heal``:
    with the task's oracle as the healing model."""
    suite.sites_variant = variant
    servers = _Servers(marks=True)
    gate = asyncio.Semaphore(concurrency)
    try:
        jobs = {j.id: j for j in await suite_jobs(suite, config, servers, ids=[t.id for t in tasks])}
        async with BrowserPool(config.browser, downloads_dir=root / "downloads") as pool:

            async def one(t: TaskResult) -> Row:
                async with gate:
                    wf, why = workflows[t.id]
                    folder = root / f"replays-v{variant}{'-healed' if heal else ''}"
                    return await replay_one(pool, jobs[t.id], t, wf, why, folder, heal)

            return list(await asyncio.gather(*(one(t) for t in tasks)))
    finally:
        servers.stop()


async def bench(
    ids: list[str] | None, concurrency: int, variants: list[int], root: Path, heal: bool = False
) -> tuple[list[Row], dict[str, Any], dict[int, list[Row]], dict[int, list[Row]]]:
    suite = load_suite(find_suite("sites"))
    config = load_config(
        None,
        {"llm.model": "kite/oracle", "run.runs_dir": str(root / "runs"), "run.screenshots": False},
    )
    started = time.monotonic()
    tasks, workflows, base = await record_and_replay(suite, config, ids, concurrency, root)
    record_s = time.monotonic() - started
    by_variant: dict[int, list[Row]] = {}
    for v in variants:
        rows = await replay_all(suite, config, v, tasks, workflows, concurrency, root)
        for row, base_row in zip(rows, base, strict=True):
            judge(row, workflows[row.id][0], base_row)
        by_variant[v] = rows
    for row in base:
        judge(row, workflows[row.id][0], None)
    healed: dict[int, list[Row]] = {}
    for v in variants if heal else []:
        healed[v] = await replay_all(suite, config, v, tasks, workflows, concurrency, root, heal=True)
    return base, summary(base, record_s), by_variant, healed


def healed_summary(rows: list[Row]) -> dict[str, Any]:
    """One variant's replays with the healing model: success (goal 100%), model calls, who did the steps."""
    replayable = [r for r in rows if r.steps and "no action to replay" not in r.why]
    done = [r for r in replayable if r.replay_ok]
    by = {k: sum(r.steps_by.get(k, 0) for r in replayable) for k in ("replayed", "healed", "agent")}
    return {
        "replayable_tasks": len(replayable),
        "replay_successes": len(done),
        "replay_success_rate": round(len(done) / len(replayable), 3) if replayable else 0.0,
        "goal_met": bool(replayable) and len(done) == len(replayable),
        "model_calls": sum(r.model_calls for r in rows),
        "steps_replayed": by["replayed"],
        "steps_healed": by["healed"],
        "steps_by_agent": by["agent"],
    }


def _table(rows: list[Row], title: str) -> None:
    print(f"\n{title}")
    print(f"{'task':34} {'agent':>6} {'run':>6} {'calls':>5} {'steps':>5} {'replay':>6} {'ratio':>5}  result")
    for r in rows:
        result = "ok" if r.replay_ok else r.why or "failed"
        if r.wrong:
            result += "  WRONG ELEMENT: " + "; ".join(r.wrong)
        ratio = f"{r.replay_s / with_model_s(r):5.2f}" if r.replay_ok and with_model_s(r) > 0 else "    -"
        print(
            f"{r.id:34} {r.agent_s:6.1f} {r.agent_run_s:6.2f} {r.agent_calls:5d} {r.steps:5d} {r.replay_s:6.2f} {ratio}  {result}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--tasks", help="only these task ids (comma-separated)")
    parser.add_argument("--concurrency", type=int, default=2, help="agent runs (and replays) at once")
    parser.add_argument(
        "--variants", default="1,2,3", help="page variants to replay on besides 0 (comma-separated; '' none)"
    )
    parser.add_argument(
        "--heal", action="store_true", help="also replay on each variant with the oracle as the healing model"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--keep", metavar="DIR", help="keep the run and replay records in DIR (else a temp dir)"
    )
    args = parser.parse_args(argv)
    ids = [t.strip() for t in args.tasks.split(",")] if args.tasks else None
    variants = [int(v) for v in args.variants.split(",") if v.strip()]
    if any(v not in (1, 2, 3) for v in variants):
        parser.error("--variants: 1, 2 or 3")
    with tempfile.TemporaryDirectory(prefix="kite-bench-replay-") as tmp:
        root = Path(args.keep) if args.keep else Path(tmp)
        rows, totals, by_variant, healed = asyncio.run(
            bench(ids, args.concurrency, variants, root, args.heal)
        )
    per_variant = {f"variant_{v}": variant_summary(r) for v, r in by_variant.items()}
    per_healed = {f"variant_{v}_healed": healed_summary(r) for v, r in healed.items()}
    wrong = sum(len(r.wrong) for rs in [rows, *by_variant.values()] for r in rs)
    if args.json:
        out = {**totals, "variants": {**per_variant, **per_healed}, "rows": [asdict(r) for r in rows]}
        out["variant_rows"] = {f"variant_{v}": [asdict(r) for r in rs] for v, rs in by_variant.items()}
        print(json.dumps(out, ensure_ascii=False))
    else:
        _table(rows, "variant 0 (the recorded pages)")
        for key, value in totals.items():
            print(f"{key}: {value}")
        for v, rs in by_variant.items():
            _table(rs, f"variant {v}")
            for key, value in per_variant[f"variant_{v}"].items():
                print(f"{key}: {value}")
        for v, rs in healed.items():
            _table(rs, f"variant {v}, healing with the oracle")
            for key, value in per_healed[f"variant_{v}_healed"].items():
                print(f"{key}: {value}")
    if wrong:
        print(f"FAILED: {wrong} replayed action(s) landed on another element than the task's own")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
