"""``kite batch TASKS``: run the tasks of a YAML or JSONL file unattended, N at once, one browser context each.

Every result is appended to the output JSONL (one line per task) the moment it finishes; running the same
command again resumes: finished ids are skipped (``--retry-failed`` runs the failed ones again). Actions that
need confirmation are denied unless ``--approve`` (or the task's ``approve``) allows them — there is never an
interactive prompt. Exit code: 0 when every task of the file succeeded, 1 otherwise, 2 on usage errors.

A task's fields are its model's, ``agent.batch.tasks.Task`` (``kite batch --help`` lists them); the task's
own model, max_steps, secrets, allowed_domains and approve override the command's. ``{sites}`` in a task
starts the bundled local sites.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import textwrap
import time
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from kite_browser.agent.commands._agent_opts import (
    add_agent_options,
    check_out_file,
    load_with_args,
    positive_int,
    refuse_unusable_models,
)
from kite_browser.agent.commands._backend_opts import (
    add_backend_options,
    check_backend,
    make_backend,
    records_dir,
)
from kite_browser.agent.commands._browser_opts import add_browser_options
from kite_browser.agent.commands._console import console_for
from kite_browser.agent.llm.resolve import prepare_config

if TYPE_CHECKING:
    from rich.console import Console

    from kite_browser.agent.batch.jobs import Job
    from kite_browser.agent.batch.runner import BatchRunner
    from kite_browser.agent.config import KiteConfig


DESCRIPTION = """\
Run the tasks of a YAML or JSONL file unattended, N at once, one browser context each.

Every result is appended to the output JSONL (one line per task) the moment it finishes; running the same
command again resumes: finished ids are skipped (--retry-failed runs the failed ones again). Actions that need
confirmation are denied unless --approve (or the task's approve) allows them; nothing ever prompts. Exit code:
0 when every task of the file succeeded, 1 otherwise, 2 on usage errors, 130 when interrupted."""


def task_fields_help() -> str:
    """Every field of a task, from the task model itself (so this list cannot fall behind it)."""
    from kite_browser.agent.batch.tasks import Task

    lines = ["task fields (a YAML list of tasks, or one JSON object per line; id and task are required):"]
    for name, field in Task.model_fields.items():
        about = " ".join((field.description or "").replace("``", "").split())
        lines += textwrap.wrap(about, 100, initial_indent=f"  {name:<17}", subsequent_indent=" " * 19)
    lines.append("A task's model, max_steps, secrets, allowed_domains and approve override the command's;")
    lines.append("{sites} in a task starts the bundled local sites.")
    return "\n".join(lines)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "batch",
        help="run many tasks from a file, N at once, resumable",
        description=DESCRIPTION,
        epilog=task_fields_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("tasks", metavar="TASKS", help="a YAML or JSONL task file")
    p.add_argument("--concurrency", type=positive_int, default=1, help="tasks at once (default 1)")
    p.add_argument("--out", help="results JSONL, appended (default: TASKS-NAME.results.jsonl here)")
    p.add_argument("--retry-failed", action="store_true", help="run tasks whose last result failed again")
    add_agent_options(p)
    add_browser_options(p)
    add_backend_options(p)
    p.set_defaults(func=run)


async def run(args: argparse.Namespace) -> int:
    from kite_browser.agent.batch.jobs import build_jobs, read_task_file
    from kite_browser.agent.batch.runner import BatchRunner
    from kite_browser.agent.commands._batch_view import BatchView
    from kite_browser.agent.commands._interrupt import interruptible

    check_backend(args)
    tf = read_task_file(args.tasks)
    path = Path(args.tasks)
    extra = {}
    if not args.runs_dir:
        extra["run.runs_dir"] = str(Path(load_with_args(args).run.runs_dir) / f"batch-{path.stem}")
    config = load_with_args(args, extra)
    out = Path(args.out or f"{path.stem}.results.jsonl")
    check_out_file(str(out), "--out")
    err = console_for(stderr=True)
    values = {"suite_dir": str(tf.folder())}
    sites = None
    interrupted = False
    started = time.monotonic()
    try:
        if tf.uses_sites():
            from kite_browser.evals.sites import SitesServer

            sites = SitesServer(variant=tf.sites_variant).start()
            values |= {"sites": sites.url("/").rstrip("/"), "cross": sites.cross_origin_url.rstrip("/")}
        resolver = partial(prepare_config, start_local=args.backend != "ray")
        jobs = await build_jobs(
            tf, config, placeholders=values, cli_secrets=args.secret, prepare_config=resolver
        )
        refuse_unusable_models(*(j.config.llm.model for j in jobs))
        backend = make_backend(args, config, args.concurrency)
        runner = BatchRunner(jobs, backend, out=out, retry_failed=args.retry_failed)
        _report_start(err, runner, out)
        pending = {j.key for j in runner.pending}
        already = [runner.existing.results[j.key] for j in jobs if j.key not in pending]
        with BatchView(len(jobs), already, err) as view, interruptible(runner.interrupt):
            runner.on_result = view.finished
            try:
                await runner.run()
            except asyncio.CancelledError:
                if not runner.interrupted:
                    raise
                _uncancel()
                interrupted = True
    finally:
        if sites is not None:
            sites.stop()
    return _summary(args, config, jobs, out, time.monotonic() - started, interrupted=interrupted)


def _summary(
    args: argparse.Namespace,
    config: KiteConfig,
    jobs: list[Job],
    out: Path,
    wall_s: float,
    *,
    interrupted: bool,
) -> int:
    """Print the results table and totals; the exit code (130 interrupted, 1 when a task failed)."""
    from kite_browser.agent.batch.results import read_results
    from kite_browser.agent.commands._batch_view import summary_table, totals_line

    results = read_results(out).results
    console_for().print(summary_table(jobs, results))
    print(totals_line(jobs, results, wall_s))
    print(f"results: {out} · run records: {records_dir(args, config)}")
    if interrupted:
        print("kite: interrupted (the tasks that were running run again on resume)", file=sys.stderr)
        return 130
    return 0 if all(j.id in results and results[j.id].success for j in jobs) else 1


def _uncancel() -> None:
    """The cancel came from our own Ctrl-C handler and has been dealt with."""
    task = asyncio.current_task()
    if task is not None:
        task.uncancel()


def _report_start(err: Console, runner: BatchRunner, out: Path) -> None:
    existing, total = runner.existing, len(runner.jobs)
    if existing.torn:
        err.print(f"[yellow]note:[/] {out}: the last line was cut off (a killed run); that task runs again")
    if existing.skipped:
        err.print(f"[yellow]note:[/] {out}: {existing.skipped} line(s) are not results and were ignored")
    skipped = total - len(runner.pending)
    if skipped:
        err.print(f"resuming {out}: {skipped} of {total} task(s) already finished")
    err.print(f"kite batch: {len(runner.pending)} task(s) to run, {runner.concurrency} at once")
