"""``kite tui``: the interactive terminal UI (the agent and its heavy imports load when a run starts)."""

from __future__ import annotations

import argparse

from kite_browser.agent.commands._agent_opts import (
    add_agent_options,
    check_runs_dir,
    check_start_url,
    load_with_args,
)
from kite_browser.agent.commands._browser_opts import add_browser_options
from kite_browser.agent.config import KiteConfig
from kite_browser.agent.llm.model_names import model_or_local


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("tui", help="the interactive terminal UI", description="Run tasks in a terminal UI.")
    p.add_argument("--task", default="", help="prefill the task")
    p.add_argument("--start-url", default="", help="prefill the start URL")
    add_agent_options(p)  # --model ..., --max-steps, --secret, --approve, domains, --runs-dir
    add_browser_options(p)
    p.set_defaults(func=run)


def with_cli_secrets(config: KiteConfig, items: list[str]) -> KiteConfig:
    """The config with ``--secret NAME[@domain]=VALUE`` flags added to ``safety.secrets`` (checked first, so a
    bad one is a usage error before the UI opens); each run's SecretStore then holds them."""
    if not items:
        return config
    from kite_browser.safety.secrets import SecretStore

    SecretStore.from_sources(config.safety, cli=items, env={})  # raises a clear error for a malformed flag
    secrets = dict(config.safety.secrets)
    for item in items:
        key, _, value = item.partition("=")
        secrets[key.strip()] = value
    return config.model_copy(update={"safety": config.safety.model_copy(update={"secrets": secrets})})


def run(args: argparse.Namespace) -> int:
    from kite_browser.agent.tui.app import KiteApp
    from kite_browser.agent.tui.history import TaskEntry

    config = with_cli_secrets(load_with_args(args), args.secret)
    check_runs_dir(config.run.runs_dir)
    start_url = (
        check_start_url(args.start_url, config.browser) if args.start_url else ""
    )  # before the UI opens
    start = TaskEntry(
        task=args.task,
        start_url=start_url or "",
        model=model_or_local(config.llm.model),
        vision=bool(config.llm.vision),
        headed=not config.browser.headless,
    )
    KiteApp(config, start=start).run()
    return 0
