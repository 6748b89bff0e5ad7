"""``kite cache list | show KEY | clear [KEY]``: the entries ``kite run TASK --cache`` keeps in Kite's data dir
(``run.cache_dir``): each a workflow recorded from a successful run, replayed by the next run of the same task.
A key that names no entry is a one-line error (exit 2)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kite_browser.agent.workflow.cache import TaskCache


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "cache",
        help="the task cache of kite run --cache: list, show, clear its entries",
        description="The entries kite run TASK --cache keeps: a successful run as a workflow, replayed next time.",
    )
    cmds = p.add_subparsers(dest="cache_command", metavar="SUBCOMMAND", required=True)
    ls = cmds.add_parser("list", help="list the entries, newest first")
    ls.add_argument("--json", action="store_true", help="the entries as JSON lines")
    ls.set_defaults(func=list_cmd)
    show = cmds.add_parser("show", help="an entry: what it was made from, and its workflow")
    show.add_argument("key", metavar="KEY", help="the entry's key, or its first digits")
    show.set_defaults(func=show_cmd)
    clear = cmds.add_parser("clear", help="remove every entry, or the one KEY names")
    clear.add_argument("key", metavar="KEY", nargs="?", help="only this entry")
    clear.set_defaults(func=clear_cmd)


def _cache(args: argparse.Namespace) -> TaskCache:
    from kite_browser.agent.config import load_config
    from kite_browser.agent.workflow.cache import TaskCache

    return TaskCache.of(load_config(getattr(args, "config", None)))


def list_cmd(args: argparse.Namespace) -> int:
    cache = _cache(args)
    entries = cache.entries()
    if args.json:
        for e in entries:
            print(json.dumps(e.model_dump(mode="json"), ensure_ascii=False))
        return 0
    if not entries:
        print(f"no entries in {cache.folder}")
        return 0
    print(f"{len(entries)} entries in {cache.folder}")
    for e in entries:
        task = e.task if len(e.task) <= 60 else e.task[:59] + "…"
        print(
            f"{e.key}  {e.steps:>2} steps  {e.replays:>3} replays  {e.updated_at}  {task!r}  {e.start_url or ''}"
        )
    return 0


def show_cmd(args: argparse.Namespace) -> int:
    cache = _cache(args)
    entry = cache.find(args.key)
    print(f"key: {entry.key}\ntask: {entry.task}\nstart_url: {entry.start_url or ''}")
    if entry.variables:
        print("variables: " + ", ".join(f"{k}={v}" for k, v in entry.variables.items()))
    print(
        f"recorded with {entry.model_calls} model calls; replayed {entry.replays} times; "
        f"created {entry.created_at}, updated {entry.updated_at}"
    )
    print(f"workflow: {cache.workflow_path(entry.key)}")
    print(cache.workflow_path(entry.key).read_text(encoding="utf-8"), end="")
    return 0


def clear_cmd(args: argparse.Namespace) -> int:
    cache = _cache(args)
    if args.key:
        entry = cache.find(args.key)
        cache.remove(entry.key)
        print(f"removed {entry.key} ({entry.task!r})")
        return 0
    print(f"removed {cache.clear()} entries from {cache.folder}")
    return 0
