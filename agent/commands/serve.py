"""``kite serve``: the HTTP API and the web panel (modules, tools, agent runs with live events)."""

from __future__ import annotations

import argparse

from kite_browser.agent.commands._agent_opts import (
    load_with_args,
    port_number,
    refuse_unusable_models,
)
from kite_browser.agent.commands._browser_opts import add_browser_options
from kite_browser.agent.llm.resolve import prepare_config


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve",
        help="serve the HTTP API and the web panel",
        description="Serve Kite over HTTP: modules, tools, and agent runs you watch and steer from a browser "
        "tab. Every /api request needs the bearer token (printed at start unless you set one).",
    )
    h = p.add_argument_group("server")
    h.add_argument("--host", help="address to listen on (default 127.0.0.1; any other needs --token)")
    h.add_argument("--port", type=port_number, help="port (default 8710; 0 = any free port)")
    h.add_argument(
        "--token", help="bearer token clients must send (default: server.token, else a random one)"
    )
    g = p.add_argument_group("runs")
    g.add_argument("--model", help="the runs' default model (a litellm model string)")
    g.add_argument("--api-base", help="base URL of an OpenAI-compatible server")
    g.add_argument("--runs-dir", help="where run records go (default: runs/)")
    g.add_argument(
        "--secret",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a secret runs may ask for by name (NAME@domain=VALUE limits it); values never leave the server",
    )
    g.add_argument(
        "--approve",
        action="append",
        default=None,
        metavar="LEVEL|ACTION",
        help="approve without asking (e.g. executeJS); otherwise a person answers over HTTP",
    )
    add_browser_options(p)
    p.set_defaults(func=run)


async def run(args: argparse.Namespace) -> int:
    from kite_browser.agent.base import telemetry
    from kite_browser.agent.base.httpserve import check_http_options
    from kite_browser.agent.commands._agent_opts import check_runs_dir
    from kite_browser.agent.server.serve import serve

    config = load_with_args(args)
    host = args.host or config.server.host
    check_http_options(host, args.token or config.server.token)  # before anything starts
    check_runs_dir(config.run.runs_dir)
    refuse_unusable_models(config.llm.model)
    telemetry.configure_from(config.telemetry)  # before the first request: its span is the parent
    await serve(
        config,
        host=host,
        port=args.port,
        token=args.token,
        secrets_cli=args.secret,
        prepare_config=prepare_config,
    )
    return 0
