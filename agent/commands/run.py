"""``kite run "task"``: run one task with live progress; exit 0 on success, 1 on failure, 2 on usage errors."""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
from typing import TYPE_CHECKING

from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.base.result import StopReason
from kite_browser.agent.commands._agent_opts import (
    add_agent_options,
    check_out_file,
    check_runs_dir,
    check_start_url,
    load_with_args,
    refuse_unusable_models,
)
from kite_browser.agent.commands._browser_opts import add_browser_options
from kite_browser.agent.commands._console import console_for
from kite_browser.agent.commands._progress import ProgressPrinter
from kite_browser.agent.config import NO_DISPLAY_HELP, KiteConfig, has_display
from kite_browser.agent.llm.resolve import prepare_config

if TYPE_CHECKING:
    from kite_browser.agent.base.jsontypes import JsonObject
    from kite_browser.agent.run.loop import Agent


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="run one task", description="Run one task in the browser.")
    p.add_argument("task", help="what Kite should do, in plain language")
    p.add_argument("--start-url", help="open this URL first")
    p.add_argument("--json", action="store_true", help="print the result as JSON on stdout")
    p.add_argument(
        "--output-schema",
        metavar="FILE",
        help="a JSON schema file: the answer's structured form (result 'data') must match it",
    )
    p.add_argument(
        "--save-workflow",
        metavar="FILE",
        help="when the run succeeds, save it as a workflow to replay without a model (kite replay FILE)",
    )
    p.add_argument(
        "--cache",
        action="store_true",
        help=(
            "replay the last successful run of this task (same words, start URL host and path) with no model "
            "call, healing with the model when the page changed; record it when there is none (kite cache list)"
        ),
    )
    add_agent_options(p)
    add_browser_options(p)
    p.set_defaults(func=run)


def make_confirmer(config):
    from kite_browser.safety.confirm import BatchConfirmer, TerminalConfirmer

    approve = config.safety.approve
    if sys.stdin.isatty() and not approve:
        return TerminalConfirmer()
    return BatchConfirmer(approve, nobody=unattended_why(approve))


def unattended_why(approve: list[str]) -> str:
    """Why nobody is asked to confirm in a command that asks on the terminal when it can."""
    if approve:
        return f"nobody is asked once --approve is given, and it allows only {', '.join(approve)}"
    return "nobody could be asked (stdin is not a terminal)"


RUN_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""Each stops a run the same way: the model call and the step in flight are cancelled, the run's record is
written (stop reason ``interrupted``), the browser is closed, the local model server let go; the exit code
is 128 + the signal's number (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP)."""


async def run(args: argparse.Namespace) -> int:
    config = load_with_args(args)
    refuse_unusable_models(config.llm.model)
    start_url = check_start_url(args.start_url, config.browser)  # bad input fails before anything starts
    check_runs_dir(config.run.runs_dir)
    check_out_file(args.save_workflow, "--save-workflow")
    from kite_browser.agent.run.output import load_schema

    schema = load_schema(args.output_schema) if args.output_schema else None
    if not config.browser.headless and not config.browser.attach and not has_display():
        raise UsageError(NO_DISPLAY_HELP)
    from kite_browser.agent.commands._interrupt import interruptible

    with interruptible(signals=RUN_SIGNALS) as heard:
        agent: list[Agent] = []
        try:
            return await _run(args, config, start_url, schema, agent)
        except asyncio.CancelledError:
            if heard.signal is None:
                raise
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()  # the cancel was ours, and it is handled here
    if agent and agent[0].result is not None and args.json:
        print(json.dumps(agent[0].result.model_dump(mode="json"), ensure_ascii=False))
    what = "" if heard.signal == signal.SIGINT else f" ({heard.signal.name if heard.signal else ''})"
    print(f"kite: interrupted{what}", file=sys.stderr)
    return heard.exit_code


def save_workflow(run_dir: str | None, success: bool, path: str) -> None:
    """``--save-workflow``: the run as a workflow file, or why not (on stderr; the run's exit code stands)."""
    from kite_browser.agent.commands.workflow import summary
    from kite_browser.agent.workflow.errors import RunNotSavableError
    from kite_browser.agent.workflow.model import save_file
    from kite_browser.agent.workflow.save import workflow_from_run

    if not success or run_dir is None:
        print(f"kite: workflow not saved: the run did not succeed ({path} left as it was)", file=sys.stderr)
        return
    try:
        wf = workflow_from_run(run_dir)
    except RunNotSavableError as exc:
        print(f"kite: workflow not saved: {exc.message}", file=sys.stderr)
        return
    print(f"workflow saved to {save_file(wf, path)}: {summary(wf)}", file=sys.stderr)


async def _run(
    args: argparse.Namespace,
    config: KiteConfig,
    start_url: str | None,
    schema: JsonObject | None,
    made: list[Agent],
) -> int:
    from kite_browser.agent.run.loop import Agent
    from kite_browser.safety.secrets import SecretStore

    config = await prepare_config(config)
    secrets = SecretStore.from_sources(config.safety, cli=args.secret)
    printer = ProgressPrinter(console_for(stderr=args.json))  # stdout is the JSON's with --json
    confirmer = make_confirmer(config)
    agent = Agent(config, confirmer=confirmer, secrets=secrets, on_event=printer, output_type=schema)
    made.append(agent)
    try:
        if args.cache:
            from kite_browser.agent.workflow.cache import run_cached

            result = await run_cached(
                config,
                args.task,
                start_url,
                confirmer=confirmer,
                secrets=secrets,
                on_event=printer,
                output_type=schema,
            )
        else:
            result = await agent.run(args.task, start_url=start_url)
    finally:
        printer.flush()  # the step in flight, when the run ends in an error (or is interrupted)
    printer.final(result)
    if args.save_workflow:
        save_workflow(result.run_dir, result.success, args.save_workflow)
    if args.json:
        print(json.dumps(result.model_dump(mode="json"), ensure_ascii=False))
    if result.stop_reason == StopReason.INTERRUPTED:
        return 130
    return 0 if result.success else 1
