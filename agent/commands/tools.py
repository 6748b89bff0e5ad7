"""``kite tools list`` and ``kite tools call NAME '{"json": "args"}'``: the modules' tools, by hand.

``list`` prints each enabled module with its state and its tools (name and one-line description); ``call``
makes one call and prints its JSON result on stdout (exit 0; a typed error result exits 1).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from typing import TYPE_CHECKING

from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.config import KiteConfig, load_config

if TYPE_CHECKING:
    from kite_browser.safety.confirm import Confirmer


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "tools",
        help="list the modules' tools, or call one by hand",
        description="Kite's tools for other agents (modules: chrome, browser, playwright_browser, javascript).",
    )
    sub = parser.add_subparsers(dest="tools_command", metavar="ACTION", parser_class=type(parser))
    ls = sub.add_parser("list", help="each enabled module with its state and tools")
    ls.add_argument(
        "--json", action="store_true", help="print the module states and tool definitions as JSON"
    )
    ls.add_argument("--modules", help="comma-separated modules instead of config 'modules'")
    ls.set_defaults(func=list_tools)
    call = sub.add_parser("call", help="call one tool; prints its JSON result")
    call.add_argument("name", help="tool name, e.g. chrome_launch or browser")
    call.add_argument(
        "arguments", nargs="?", default="{}", help="the arguments as a JSON object (default {})"
    )
    call.add_argument("--modules", help="comma-separated modules instead of config 'modules'")
    call.add_argument(
        "--approve",
        action="append",
        default=[],
        metavar="LEVEL_OR_ACTION",
        help="approve calls that need confirmation without asking (e.g. confirm, executeJS); repeatable",
    )
    call.set_defaults(func=call_tool)
    parser.set_defaults(func=lambda args: parser.print_help() or 2)


def _config(args: argparse.Namespace, **overrides: object) -> KiteConfig:
    # module load failures are shown as states (list) or do not matter for one call: no log lines on stderr
    logging.getLogger("kite.modules").setLevel(logging.ERROR)
    if getattr(args, "modules", None):
        from kite_browser.agent.modules.loader import check_names

        names = [m.strip() for m in args.modules.split(",") if m.strip()]
        overrides["modules"] = names
        check_names(names, "--modules")
    return load_config(getattr(args, "config", None), overrides=overrides)


async def list_tools(args: argparse.Namespace) -> int:
    from kite_browser.agent.modules import Toolbox

    async with Toolbox(_config(args)) as tb:
        states = tb.states()
        if args.json:
            out = {"modules": [s.model_dump() for s in states], "tools": tb.tool_definitions()}
            print(json.dumps(out, ensure_ascii=False, indent=2))
            return 0
        descriptions = {d.name: d.description for d in tb.definitions()}
        for state in states:
            extra = f" ({state.error['error']}: {state.error['message']})" if state.error else ""
            print(f"{state.name} [{state.status}] {state.tool_count} tool(s){extra}")
            for tool in state.tools:
                print(f"  {tool:<22} {descriptions.get(tool, '')}")
    return 0


def _confirmer(approve: list[str]) -> Confirmer:
    from kite_browser.agent.commands.run import unattended_why
    from kite_browser.safety.confirm import BatchConfirmer, TerminalConfirmer

    if sys.stdin.isatty() and not approve:
        return TerminalConfirmer()
    return BatchConfirmer(approve, nobody=unattended_why(approve))


async def call_tool(args: argparse.Namespace) -> int:
    from kite_browser.agent.modules import Toolbox

    try:
        arguments = json.loads(args.arguments)
    except json.JSONDecodeError as exc:
        raise UsageError(f"the arguments are not valid JSON: {exc.msg} (column {exc.colno})") from exc
    if not isinstance(arguments, dict):
        raise UsageError('the arguments must be a JSON object, e.g. \'{"url": "https://example.org"}\'')
    config = _config(args)
    approve = [*config.safety.approve, *args.approve]
    async with Toolbox(config, confirmer=_confirmer(approve)) as tb:
        result = await tb.call(args.name, arguments, caller="cli")
    print(json.dumps(result, ensure_ascii=False))
    return 1 if "error" in result else 0
