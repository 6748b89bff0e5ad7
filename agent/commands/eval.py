"""``kite eval SUITE``: run an eval suite and write reports; ``kite eval compare A.json B.json``.

SUITE is ``sites`` (the bundled apps), ``mail`` / ``events`` (the WebArena-style webmail and event booking
apps), ``miniwob`` (MiniWoB++ over the ``miniwob`` package's HTML) or a suite file. ``--model kite/oracle`` runs the oracle (a deterministic model that follows the suites' solution plans).
A real local model: ``--model openai/NAME --api-base http://127.0.0.1:PORT/v1``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.commands._agent_opts import (
    add_agent_options,
    check_out_file,
    load_with_args,
    positive_int,
    refuse_unusable_models,
)
from kite_browser.agent.commands._backend_opts import (
    add_backend_options,
    check_backend,
    make_backend,
    records_dir,
)
from kite_browser.agent.commands._browser_opts import add_browser_options
from kite_browser.agent.config.sections import POLICY_NAMES
from kite_browser.agent.llm.resolve import prepare_config

T = TypeVar("T")

if TYPE_CHECKING:
    from kite_browser.agent.batch.results import TaskResult
    from kite_browser.agent.batch.runner import BatchRunner
    from kite_browser.evals.tasks import Suite


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "eval",
        help="run an eval suite (sites, miniwob or a file); 'eval compare A.json B.json'",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "suite",
        nargs="+",
        metavar="SUITE",
        help="sites | mail | events | miniwob | FILE, or: compare A.json B.json",
    )
    p.add_argument("--repeat", type=positive_int, default=1, help="run every task K times")
    p.add_argument("--concurrency", type=positive_int, default=1, help="tasks at once (one context each)")
    p.add_argument(
        "--tasks", help="only these task ids, in this order (comma-separated; MiniWoB: a type or type#seed)"
    )
    p.add_argument("--seeds", help="MiniWoB seeds, e.g. 0-9 or 0,3,5")
    p.add_argument(
        "--variant",
        type=int,
        choices=(0, 1, 2, 3),
        help="serve {sites} as this page variant (1: ids renamed, lists reordered; 2: also synonyms, a product "
        "on page 2; 3: also a cookie banner); default: the suite's sites_variant, else 0",
    )
    p.add_argument(
        "--policy",
        action="append",
        default=[],
        metavar="-NAME",
        help="turn the step policy NAME off for this eval, an ablation (repeatable; names: "
        + ", ".join(POLICY_NAMES)
        + ")",
    )
    p.add_argument(
        "--phrasing",
        choices=("terse", "chatty", "list", "all"),
        help="say the suite's multi-step tasks in other words: terse, chatty, a numbered list, or all three "
        "(each task three times; the report names each task's worst phrasing); default: the task as written",
    )
    p.add_argument("--json", dest="json_out", metavar="OUT", help="write the JSON report here")
    p.add_argument("--md", dest="md_out", metavar="OUT", help="write the Markdown report here")
    p.add_argument("--html", dest="html_out", metavar="OUT", help="write the self-contained HTML report here")
    add_agent_options(p)
    add_browser_options(p)
    add_backend_options(p)
    p.set_defaults(func=run)


def parse_seeds(text: str) -> list[int]:
    seeds: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            if "-" in part:
                lo, hi = part.split("-", 1)
                seeds.extend(range(int(lo), int(hi) + 1))
            else:
                seeds.append(int(part))
        except ValueError:
            raise UsageError(f"--seeds: expected numbers or ranges like 0-9, got '{part}'") from None
    return seeds


def ablation(flags: list[str]) -> list[str]:
    """The policy names ``--policy -NAME`` flags turn off; a UsageError for a flag that names none."""
    names = []
    for flag in flags:
        name = flag[1:] if flag.startswith("-") else ""
        if name not in POLICY_NAMES:
            raise UsageError(
                f"--policy: expected -NAME with NAME one of {', '.join(POLICY_NAMES)}; got '{flag}'"
            )
        names.append(name)
    return names


async def run(args: argparse.Namespace) -> int:
    if args.suite[0] == "compare":
        return compare(args.suite[1:])
    if len(args.suite) != 1:
        raise UsageError("give one suite: sites, miniwob or a suite file")
    from kite_browser.agent.commands._interrupt import interruptible
    from kite_browser.evals.harness import run_eval
    from kite_browser.evals.report import (
        headline,
        phrasing_summary,
        policies_line,
        write_json,
        write_markdown,
    )
    from kite_browser.evals.report_html import write_html

    check_backend(args)
    off = ablation(args.policy)
    for flag, out in (("--json", args.json_out), ("--md", args.md_out), ("--html", args.html_out)):
        check_out_file(out, flag)
    suite = _suite(args)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    extra: dict[str, object] = {"browser.block_external_hosts": True}
    if not args.runs_dir:
        extra["run.runs_dir"] = str(Path(load_with_args(args).run.runs_dir) / f"eval-{suite.name}-{stamp}")
    if off:
        extra["agent.policies.disabled"] = [*load_with_args(args).agent.policies.disabled, *off]
    config = load_with_args(args, extra)
    refuse_unusable_models(config.llm.model, eval_only_ok=True)  # before any browser or site starts
    config = await prepare_config(config, start_local=args.backend != "ray")
    ids = [i.strip() for i in args.tasks.split(",") if i.strip()] if args.tasks else None
    done = {"n": 0, "ok": 0}

    def progress(result: TaskResult) -> None:
        done["n"] += 1
        done["ok"] += result.success
        why = "" if result.success else f"  ({'; '.join(result.failures) or result.message})"[:200]
        print(
            f"[{done['n']}] {'ok  ' if result.success else 'FAIL'} {result.id} "
            f"{result.steps} steps {result.wall_s:.1f}s {result.stop_reason}{why}",
            flush=True,
        )

    runners: list[BatchRunner] = []

    def interrupt() -> None:
        for runner in runners:
            runner.interrupt()

    with interruptible(interrupt):
        report = await run_eval(
            suite,
            config,
            repeat=args.repeat,
            concurrency=args.concurrency,
            ids=ids,
            max_steps=args.max_steps,
            on_result=progress,
            on_runner=runners.append,
            backend=make_backend(args, config, args.concurrency) if args.backend == "ray" else None,
            phrasing=args.phrasing,
        )
    print(headline(report))
    for line in policies_line(report):
        print(line)
    if worst := phrasing_summary(report):
        print(worst)
    for out, writer in (
        (args.json_out, write_json),
        (args.md_out, write_markdown),
        (args.html_out, write_html),
    ):
        if out:
            print(f"wrote {writer(report, out)}")
    print(f"run records: {records_dir(args, config)}")
    if report.interrupted:
        print("kite: interrupted (the report holds the tasks that finished)", file=sys.stderr)
        return 130
    return 0 if report.successes == report.n else 1


def _suite(args: argparse.Namespace) -> Suite:
    """The suite named on the command line, with ``--seeds`` and ``--variant`` applied (``--phrasing`` is
    applied by the harness: it checks here that the suite takes it)."""
    from kite_browser.evals.tasks import find_suite, load_suite

    suite = load_suite(find_suite(args.suite[0]))
    if args.seeds:
        if suite.miniwob is None:
            raise UsageError("--seeds applies to MiniWoB suites only")
        suite.miniwob.seeds = parse_seeds(args.seeds)
    if args.variant is not None:
        suite.sites_variant = args.variant
    if args.phrasing and suite.miniwob is not None:
        raise UsageError("--phrasing applies to task suites, not to MiniWoB")
    return suite


def compare(paths: list[str]) -> int:
    from kite_browser.evals.report import compare as diff
    from kite_browser.evals.report import compare_text, load_json

    if len(paths) != 2:
        raise UsageError("usage: kite eval compare A.json B.json")
    for p in paths:
        if not Path(p).is_file():
            raise UsageError(f"no such report: {p}")
    a, b = (_report(p, load_json) for p in paths)
    result = diff(a, b)
    print(compare_text(result))
    print(json.dumps(result, ensure_ascii=False))
    return 0


def _report(path: str, load: Callable[[str], T]) -> T:
    """An eval report read from ``path``; a one-line UsageError naming the file and what is wrong."""
    from pydantic import ValidationError

    try:
        return load(path)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        why = f"{where}: {err['msg']}" if where else err["msg"]
        raise UsageError(f"{path} is not an eval report (the JSON 'kite eval --json' writes): {why}") from exc
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path} is not an eval report: it is not UTF-8 text (byte {exc.start})") from exc
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from exc
