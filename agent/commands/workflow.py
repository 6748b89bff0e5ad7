"""``kite workflow save RUN_DIR FILE`` (a successful run as a workflow), ``kite workflow check FILE`` (load it
and list its steps), ``kite workflow export FILE --playwright OUT`` (a Playwright
script that runs without Kite), ``kite workflow schema`` (the file's JSON schema). A file or run that cannot be used is a
one-line error and exit 2."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kite_browser.agent.workflow.model import Workflow


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "workflow",
        help="save a run as a workflow to replay without a model; check one; its schema",
        description="Workflows: a successful run saved as a YAML file, replayed with 'kite replay FILE'.",
    )
    cmds = p.add_subparsers(dest="workflow_command", metavar="SUBCOMMAND", required=True)
    save = cmds.add_parser("save", help="save a recorded run (or a kite mcp session) as a workflow file")
    save.add_argument(
        "run_dir", metavar="RUN_DIR", help="a run folder (runs/<run>), or a kite mcp record folder"
    )
    save.add_argument("file", metavar="FILE", help="the workflow file to write (YAML)")
    save.add_argument("--client", help="a kite mcp record: the session whose actions to save (when several)")
    save.add_argument("--task", default="", help="a kite mcp record: what the workflow does, in words")
    save.set_defaults(func=save_cmd)
    check = cmds.add_parser("check", help="load a workflow file and list its steps")
    check.add_argument("file", metavar="FILE")
    check.set_defaults(func=check_cmd)
    export = cmds.add_parser("export", help="write a workflow as a Playwright-for-Python script")
    export.add_argument("file", metavar="FILE")
    export.add_argument("--playwright", metavar="OUT", required=True, help="the Python script to write")
    export.set_defaults(func=export_cmd)
    schema = cmds.add_parser("schema", help="print the JSON schema of a workflow file")
    schema.set_defaults(func=schema_cmd)


def summary(wf: Workflow) -> str:
    names = [f"{n} (secret)" if v.secret else f"{n}={v.default}" for n, v in wf.variables.items()]
    return f"{len(wf.steps)} steps from {wf.start_url}; variables: {', '.join(names) or 'none'}"


def save_cmd(args: argparse.Namespace) -> int:
    from pathlib import Path

    from kite_browser.agent.workflow.model import save_file
    from kite_browser.agent.workflow.save import workflow_from_mcp, workflow_from_run

    mcp = (Path(args.run_dir) / "record.jsonl").is_file() and not (Path(args.run_dir) / "run.json").is_file()
    if mcp:
        wf = workflow_from_mcp(args.run_dir, client=args.client, task=args.task)
    else:
        wf = workflow_from_run(args.run_dir)
    path = save_file(wf, args.file)
    print(f"saved {path}: {summary(wf)}")
    return 0


def check_cmd(args: argparse.Namespace) -> int:
    from kite_browser.agent.workflow.model import load_workflow

    wf = load_workflow(args.file)
    print(f"{args.file}: {summary(wf)}")
    for i, step in enumerate(wf.steps, 1):
        print(f"  {i}. {step.intent or step.action}")
    return 0


def export_cmd(args: argparse.Namespace) -> int:
    from pathlib import Path

    from kite_browser.agent.workflow.export import playwright_script
    from kite_browser.agent.workflow.model import load_workflow

    wf = load_workflow(args.file)
    out = Path(args.playwright).expanduser()
    out.write_text(playwright_script(wf, script=str(out)), encoding="utf-8")
    print(f"wrote {out}: {len(wf.steps)} steps; run it: python {out} --start-url URL")
    return 0


def schema_cmd(args: argparse.Namespace) -> int:
    from kite_browser.agent.workflow.model import workflow_schema

    print(json.dumps(workflow_schema(), indent=2, ensure_ascii=False))
    return 0
