"""``kite tui``: the interactive terminal UI (the agent and its heavy imports load when a run starts)."""

from __future__ import annotations

import argparse

from agent.commands._agent_opts import add_model_options, load_with_args
from agent.commands._browser_opts import add_browser_options


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("tui", help="the interactive terminal UI", description="Run tasks in a terminal UI.")
    p.add_argument("--task", default="", help="prefill the task")
    p.add_argument("--start-url", default="", help="prefill the start URL")
    add_model_options(p)
    add_browser_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from agent.tui.app import KiteApp
    from agent.tui.history import TaskEntry

    config = load_with_args(args)
    start = TaskEntry(
        task=args.task,
        start_url=args.start_url,
        model=config.llm.model or "local",
        vision=bool(config.llm.vision),
        headed=not config.browser.headless,
    )
    KiteApp(config, start=start).run()
    return 0
