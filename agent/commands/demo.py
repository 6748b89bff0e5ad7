"""``kite demo``: the main job of ``make demo`` — a real agent task on the bundled shop.

Uses KITE_MODEL when set, otherwise the bundled local model. With no usable model it says how to configure
one and exits non-zero; it never pretends.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from rich.markup import escape

from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.batch.checks import state_failures
from kite_browser.agent.commands._agent_opts import (
    add_agent_options,
    load_with_args,
    refuse_unusable_models,
)
from kite_browser.agent.commands._browser_opts import add_browser_options
from kite_browser.agent.commands._console import console_for
from kite_browser.agent.commands._progress import ProgressPrinter
from kite_browser.agent.llm.resolve import prepare_config

if TYPE_CHECKING:
    from rich.console import Console

    from kite_browser.agent.base.jsontypes import JsonObject

DEMO_TASK = (
    'Search the shop for "espresso", open the mug you find, add it to the cart, then open the cart and report '
    "what it holds."
)
"""The default task: search, open a product, add it, report the cart, within the bundled local model's reach
(the harder cheapest-blue-mug task is in the sites suite: shop-cheapest-blue-mug)."""
DEMO_STATE = {"cart_count": 1, "cart.0.name": "Sky Blue Espresso Mug"}
"""What the default task must leave in the shop, read from the shop's own state (never the model's claim)."""
DEMO_ANSWER = "Sky Blue Espresso Mug"
"""What the answer must name."""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "demo",
        help="run a demo task on the bundled shop",
        description="Start the bundled sites and run a real agent task on the shop.",
    )
    p.add_argument(
        "--task",
        default=DEMO_TASK,
        help="the task to run: in words (on the shop), or the id of a task of the bundled suites (sites, mail, "
        "events; e.g. mail-reply-lunch, events-cancel-football), run where it starts and checked on the app's "
        "state (default: %(default)s)",
    )
    p.add_argument(
        "--phrasing",
        choices=("terse", "chatty", "list"),
        help="with a task id: say the task in these other words (its phrasings in the suite)",
    )
    add_agent_options(p)
    add_browser_options(p)
    p.set_defaults(func=run)


async def run(args: argparse.Namespace) -> int:
    from kite_browser.agent.run.loop import Agent
    from kite_browser.evals.demo_tasks import find_task, misses, prepared
    from kite_browser.evals.sites.server import SitesServer
    from kite_browser.safety.confirm import BatchConfirmer

    bundled = find_task(args.task)
    if args.phrasing and bundled is None:
        raise UsageError("--phrasing needs --task ID (a task of the bundled suites), not a task in words")
    extra: dict[str, object] = {"browser.block_external_hosts": True}
    if bundled is not None:  # the task's own approvals and secrets, as kite eval gives them
        extra |= {"safety.approve": bundled[1].approve, "safety.secrets": bundled[1].secrets}
    config = load_with_args(args, extra)
    refuse_unusable_models(config.llm.model)  # one line and exit 2, before the sites and the browser start
    config = await prepare_config(config)
    printer = ProgressPrinter(console_for())
    with SitesServer() as sites:
        agent = Agent(
            config,
            confirmer=BatchConfirmer(config.safety.approve, nobody="nobody is asked in kite demo"),
            on_event=printer,
        )
        if bundled is None:
            result = await agent.run(args.task, start_url=sites.url("/shop/"))
            checked = demo_check(result.answer or "", sites.states()) if args.task == DEMO_TASK else []
        else:
            task = prepared(*bundled, sites.url("/"), args.phrasing)
            result = await agent.run(task.task, start_url=task.start_url or sites.url("/shop/"))
            checked = _one_visitor(sites.states(), lambda state: misses(task, state, result.answer or ""))
    printer.final(result)
    if bundled is not None:
        _verdict(printer.console, checked, f"the task's check ({bundled[1].id})")
    elif args.task == DEMO_TASK:
        console = printer.console
        if checked:
            console.print("[red bold]checked on the shop: not done[/]")
            for line in checked:
                console.print(f"  {escape(line)}")
        else:
            console.print(f"[green bold]checked on the shop:[/] the cart holds 1 × {DEMO_ANSWER}")
    return 0 if result.success and not checked else 1


def _verdict(console: Console, checked: list[str], what: str) -> None:
    if checked:
        console.print("[red bold]checked on the app: not done[/]")
        for line in checked:
            console.print(f"  {escape(line)}")
    else:
        console.print(f"[green bold]checked on the app:[/] {escape(what)} holds")


def _one_visitor(states: Mapping[str, JsonObject], check: Callable[[JsonObject], list[str]]) -> list[str]:
    """``check`` on the state of the run's visitor (the only one: the demo's own browser)."""
    if len(states) != 1:
        return [f"the sites saw {len(states)} visitors, expected the demo's browser alone"]
    return check(next(iter(states.values())))


def demo_check(answer: str, states: Mapping[str, JsonObject]) -> list[str]:
    """What the default task left undone: one line per miss, read from the shop's state of the run's
    visitor (the only one: the demo's own browser) and the answer; empty when it is all done."""
    if len(states) != 1:
        return [f"the shop saw {len(states)} visitors, expected the demo's browser alone"]
    (state,) = states.values()
    misses = state_failures(DEMO_STATE, state, "the shop's state")
    if DEMO_ANSWER.lower() not in answer.lower():
        misses.append(f"answer: {answer[:200]!r} does not name the {DEMO_ANSWER}")
    return misses
