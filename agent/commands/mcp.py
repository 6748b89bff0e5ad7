"""``kite mcp``: Kite's browser as an MCP server (stdio by default; ``--http`` for streamable HTTP)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.commands._agent_opts import agent_overrides, domain, port_number
from kite_browser.agent.commands._browser_opts import add_browser_options, browser_overrides

if TYPE_CHECKING:
    from kite_browser.agent.config import KiteConfig


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "mcp",
        help="serve Kite's browser as an MCP server (stdio, or --http)",
        description="Serve Kite's browser tools over MCP: compact snapshots, stable refs, real confirmations.",
    )
    g = add_browser_options(p)
    g.add_argument("--headless", dest="headed", action="store_false", help="no browser window (the default)")
    g.add_argument("--isolated", action="store_true", help="a fresh browser context per client session")
    s = p.add_argument_group("safety")
    s.add_argument(
        "--secret",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a secret clients type as <secret>NAME</secret> (NAME@domain=VALUE limits it)",
    )
    for flag, says in (("--allowed-domain", "only these"), ("--blocked-domain", "never these")):
        s.add_argument(flag, action="append", type=domain, default=None, metavar="DOMAIN", help=says)
    s.add_argument(
        "--approve",
        action="append",
        default=None,
        metavar="LEVEL|ACTION",
        help="approve without asking (confirm, or an action name such as executeJS)",
    )
    h = p.add_argument_group("transport")
    h.add_argument("--http", action="store_true", help="streamable HTTP instead of stdio")
    h.add_argument(
        "--host",
        default=None,
        help="HTTP address, with --http (default 127.0.0.1; others need --token)",
    )
    h.add_argument(
        "--port",
        type=port_number,
        default=None,
        help="HTTP port, with --http (default 8931; 0 = any free port)",
    )
    h.add_argument("--token", help="bearer token HTTP clients must send")
    m = p.add_argument_group("modules")
    m.add_argument(
        "--module",
        action="append",
        dest="modules",
        metavar="NAME",
        help="offer this tool module's tools too (repeatable; default: mcp.modules, none)",
    )
    m.add_argument("--no-modules", action="store_true", help="offer Kite's browser tools only (the default)")
    p.add_argument(
        "--runs-dir", help="where the server's record goes (default: mcp.runs_dir, else <data dir>/mcp)"
    )
    p.set_defaults(func=run)


def _config(args: argparse.Namespace) -> KiteConfig:
    from kite_browser.agent.config import load_config

    overrides = {**browser_overrides(args), **agent_overrides(args)}
    overrides.pop("run.runs_dir", None)
    if args.runs_dir:
        overrides["mcp.runs_dir"] = args.runs_dir
    if args.no_modules:
        overrides["mcp.modules"] = []
    elif args.modules:
        from kite_browser.agent.modules.loader import check_names

        check_names(args.modules, "--module")
        overrides["mcp.modules"] = list(args.modules)
    if args.headed is False:
        overrides["browser.headless"] = True
    return load_config(getattr(args, "config", None), overrides)


async def run(args: argparse.Namespace) -> int:
    from kite_browser.agent.base import telemetry
    from kite_browser.agent.mcp.app import serve

    if not args.http:
        given = {"--host": args.host, "--port": args.port, "--token": args.token}
        for flag, value in given.items():
            if value is not None:
                raise UsageError(
                    f"{flag} needs --http (stdio is the default transport): kite mcp --http {flag} …"
                )
    else:
        from kite_browser.agent.mcp.transport import check_http_options

        check_http_options(args.host or "127.0.0.1", args.token)
    config = _config(args)
    telemetry.configure_from(config.telemetry)  # before the first request: its span is the parent
    await serve(
        config,
        secrets_cli=args.secret,
        isolated=args.isolated,
        http=args.http,
        host=args.host or "127.0.0.1",
        port=8931 if args.port is None else args.port,
        token=args.token,
    )
    return 0
