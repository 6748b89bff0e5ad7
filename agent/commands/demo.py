"""``kite demo``: the main job of ``make demo`` — a real agent task on the bundled shop.

Uses KITE_MODEL when set, otherwise the bundled local model. With no usable model it says how to configure
one and exits non-zero; it never pretends.
"""

from __future__ import annotations

import argparse

from kite_browser.agent.commands._agent_opts import (
    add_agent_options,
    load_with_args,
    refuse_unusable_models,
)
from kite_browser.agent.commands._browser_opts import add_browser_options
from kite_browser.agent.commands._console import console_for
from kite_browser.agent.commands._progress import ProgressPrinter
from kite_browser.agent.llm.resolve import prepare_config

DEMO_TASK = "Find the cheapest blue mug in the shop and report its name and price."


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "demo",
        help="run a demo task on the bundled shop",
        description="Start the bundled sites and run a real agent task on the shop.",
    )
    p.add_argument("--task", default=DEMO_TASK, help="the task to run (default: %(default)s)")
    add_agent_options(p)
    add_browser_options(p)
    p.set_defaults(func=run)


async def run(args: argparse.Namespace) -> int:
    from kite_browser.agent.loop import Agent
    from kite_browser.evals.sites.server import SitesServer
    from kite_browser.safety.confirm import BatchConfirmer

    config = load_with_args(args, {"browser.block_external_hosts": True})
    refuse_unusable_models(config.llm.model)  # one line and exit 2, before the sites and the browser start
    config = await prepare_config(config)
    printer = ProgressPrinter(console_for())
    with SitesServer() as sites:
        agent = Agent(
            config,
            confirmer=BatchConfirmer(config.safety.approve, nobody="nobody is asked in kite demo"),
            on_event=printer,
        )
        result = await agent.run(args.task, start_url=sites.url("/shop/"))
    printer.final(result)
    return 0 if result.success else 1
