"""``kite replay FILE [--var name=value ...] [--start-url URL] [--model M [--update]]``: run a saved workflow with
no model. Each step goes through the same safety gate as the agent's (a confirm-level step asks in a terminal,
needs --approve otherwise); a step whose target cannot be found for sure, or whose effect differs, stops the
replay with a typed error (exit 1) — or, with ``--model``, is done by the model for that step only (and when
it cannot, the agent takes over the rest of the task); ``--update`` writes the workflow as it ran back to
FILE and shows the diff. A file that cannot be used is a one-line error (exit 2)."""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import TYPE_CHECKING, TextIO

from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.commands._agent_opts import (
    add_model_options,
    check_runs_dir,
    check_start_url,
    domain,
    load_with_args,
    refuse_unusable_models,
)
from kite_browser.agent.commands._browser_opts import add_browser_options

if TYPE_CHECKING:
    from kite_browser.agent.base.result import RunResult
    from kite_browser.agent.workflow.model import Workflow
    from kite_browser.agent.workflow.replay import Replayer


def var_pair(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got '{text}'")
    return name.strip(), value


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "replay",
        help="replay a saved workflow with no model",
        description="Replay a workflow (kite workflow save, kite run --save-workflow) with no model call.",
    )
    p.add_argument("file", metavar="FILE", help="the workflow file (YAML)")
    p.add_argument(
        "--var", action="append", type=var_pair, default=[], metavar="NAME=VALUE", help="a variable"
    )
    p.add_argument("--start-url", help="start here instead (the same paths on another origin)")
    p.add_argument("--json", action="store_true", help="print the outcome as JSON on stdout")
    p.add_argument("--runs-dir", help="where the replay's record goes (default: runs/)")
    p.add_argument(
        "--update",
        action="store_true",
        help="with --model: write the workflow as it ran (healed steps, the agent's) back to FILE, with the diff",
    )
    add_model_options(p)
    p.add_argument("--max-steps", type=int, help="the agent's steps at most when it takes over")
    s = p.add_argument_group("safety")
    s.add_argument("--secret", action="append", default=[], metavar="NAME=VALUE", help="a secret's value")
    s.add_argument(
        "--approve", action="append", default=None, metavar="LEVEL|ACTION", help="approve without asking"
    )
    s.add_argument("--allowed-domain", action="append", type=domain, default=None, metavar="DOMAIN")
    s.add_argument("--blocked-domain", action="append", type=domain, default=None, metavar="DOMAIN")
    add_browser_options(p)
    p.set_defaults(func=replay)


async def replay(args: argparse.Namespace) -> int:
    from kite_browser.agent.workflow.model import load_workflow

    wf = load_workflow(args.file)  # a bad file fails before anything starts
    if args.update and not args.model:
        raise UsageError("--update writes back what a model healed: give --model M too")
    refuse_unusable_models(args.model)
    config = load_with_args(args)
    start_url = check_start_url(args.start_url, config.browser)
    check_runs_dir(config.run.runs_dir)
    if args.update:
        from kite_browser.agent.commands._agent_opts import check_out_file

        check_out_file(args.file, "--update")
    from kite_browser.agent.browser.env import BrowserEnv, EnvSafety
    from kite_browser.agent.browser.pool import BrowserPool
    from kite_browser.agent.commands.run import make_confirmer
    from kite_browser.agent.run.record import RunRecorder
    from kite_browser.agent.workflow.heal import Healer
    from kite_browser.agent.workflow.replay import Replayer, check_secrets
    from kite_browser.safety.secrets import SecretStore

    secrets = SecretStore.from_sources(config.safety, cli=args.secret)
    check_secrets(wf, secrets.names())  # before a model is prepared or the browser starts

    healer = None
    if args.model:
        from kite_browser.agent.commands._console import console_for
        from kite_browser.agent.commands._progress import ProgressPrinter
        from kite_browser.agent.llm.resolve import prepare_config

        config = await prepare_config(config)
        healer = Healer(config, on_event=ProgressPrinter(console_for(stderr=args.json)))
    safety = EnvSafety.from_config(config, make_confirmer(config), secrets)
    recorder = RunRecorder.create(config.run.runs_dir, secrets.redact_obj, replay_label(args.file))
    replayer = Replayer(
        wf, values=dict(args.var), start_url=start_url, recorder=recorder, healer=healer, source=args.file
    )
    async with BrowserPool(config.browser, downloads_dir=recorder.downloads) as pool:
        env = await BrowserEnv.open(pool, config, safety, run_dir=recorder.run_dir, default=True)
        try:
            await env.start(recorder.run_dir)
            out = await replayer.run(env)
        finally:
            await env.close()
    result = report(args, replayer)
    if args.update:
        update_file(args.file, wf, out.healed, sys.stderr if args.json else sys.stdout)
    if out.takeover is not None and not out.success:
        return 130 if result.stop_reason == "interrupted" else 1
    if out.error is not None:
        raise out.error
    if not out.success:
        raise UsageError("the replay did not finish")
    return 0


def replay_label(path: str) -> str:
    """The record folder's label: ``replay-`` and the workflow file's name (``...-replay-checkout``)."""
    from pathlib import Path

    stem = re.sub(r"[^0-9A-Za-z]+", "-", Path(path).stem).strip("-")[:40].lower()
    return f"replay-{stem}" if stem else "replay"


def update_file(path: str, before: Workflow, after: Workflow | None, stream: TextIO) -> None:
    """``--update``: the workflow as it ran written to ``path``, and the diff shown (nothing written when the
    replay failed, or nothing changed)."""
    import difflib

    from kite_browser.agent.workflow.model import dump_workflow, save_file

    if after is None:
        print(f"{path} left as it was: the replay did not succeed", file=stream)
        return
    old, new = dump_workflow(before), dump_workflow(after)
    if old == new:
        print(f"{path} left as it was: nothing changed", file=stream)
        return
    diff = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), f"{path} (before)", f"{path} (healed)"
    )
    stream.write("".join(diff))
    save_file(after, path)
    print(f"updated {path}", file=stream)


def report(args: argparse.Namespace, replayer: Replayer) -> RunResult:
    """The replay's line (and with --json its outcome on stdout)."""
    out = replayer.out
    result = replayer.result
    by = result.steps_by or {}
    line = (
        f"replayed {by.get('replayed', 0)} of {out.steps} steps"
        + (f", healed {by['healed']}" if by.get("healed") else "")
        + (f", the agent took over for {by['agent']}" if by.get("agent") else "")
        + f"; {out.model_calls} model calls, {out.wall_s:.1f} s; record: {out.run_dir}"
    )
    if args.json:
        err = out.error.to_dict() if out.error else None
        print(
            json.dumps(
                {
                    "success": out.success,
                    "replayed": True,
                    "answer": result.answer,
                    "done": out.done,
                    "steps": out.steps,
                    "model_calls": out.model_calls,
                    "model_calls_saved": result.model_calls_saved,
                    "steps_by": by,
                    "stop_reason": str(result.stop_reason),
                    "wall_s": out.wall_s,
                    "run_dir": out.run_dir,
                    "error": err,
                }
            )
        )
    print(line, file=sys.stderr if args.json else sys.stdout)
    if result.answer and not args.json:
        print(f"answer: {result.answer}")
    return result
