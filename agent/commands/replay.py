"""``kite replay FILE [--var name=value ...] [--start-url URL]``: run a saved workflow with no model. Each step
goes through the same safety gate as the agent's (a confirm-level step asks in a terminal, needs --approve
otherwise); a step whose target cannot be found for sure, or whose effect differs, stops the replay with a
typed error (exit 1). A file that cannot be used is a one-line error (exit 2)."""

from __future__ import annotations

import argparse
import json
import sys

from kite_browser.agent.commands._agent_opts import check_runs_dir, check_start_url, domain, load_with_args
from kite_browser.agent.commands._browser_opts import add_browser_options
from kite_browser.agent.errors import UsageError


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
    config = load_with_args(args)
    start_url = check_start_url(args.start_url, config.browser)
    check_runs_dir(config.run.runs_dir)
    from kite_browser.agent.browser.env import BrowserEnv, EnvSafety
    from kite_browser.agent.browser.pool import BrowserPool
    from kite_browser.agent.commands.run import make_confirmer
    from kite_browser.agent.record import RunRecorder
    from kite_browser.agent.workflow.replay import Replayer
    from kite_browser.safety.secrets import SecretStore

    secrets = SecretStore.from_sources(config.safety, cli=args.secret)
    safety = EnvSafety.from_config(config, make_confirmer(config), secrets)
    recorder = RunRecorder.create(config.run.runs_dir, secrets.redact_obj, "replay")
    replayer = Replayer(wf, values=dict(args.var), start_url=start_url, recorder=recorder)
    async with BrowserPool(config.browser, downloads_dir=recorder.downloads) as pool:
        env = await BrowserEnv.open(pool, config, safety, run_dir=recorder.run_dir, default=True)
        try:
            await env.start(recorder.run_dir)
            out = await replayer.run(env)
        finally:
            await env.close()
    line = (
        f"replayed {out.done} of {out.steps} steps, 0 model calls, {out.wall_s:.1f} s; record: {out.run_dir}"
    )
    if args.json:
        err = out.error.to_dict() if out.error else None
        print(
            json.dumps(
                {
                    "success": out.success,
                    "done": out.done,
                    "steps": out.steps,
                    "model_calls": 0,
                    "wall_s": out.wall_s,
                    "run_dir": out.run_dir,
                    "error": err,
                }
            )
        )
    print(line, file=sys.stderr if args.json else sys.stdout)
    if out.error is not None:
        raise out.error
    if not out.success:
        raise UsageError("the replay did not finish")
    return 0
