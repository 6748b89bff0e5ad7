"""``kite``: the command line. Each subcommand lives in ``agent/commands/<name>.py`` and exposes
``register(subparsers)``; this module only wires them and turns usage errors into one line + exit 2."""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib
import inspect
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from kite_browser.agent import __version__
from kite_browser.agent.base.errors import ConfigError, KiteError, UsageError

# Subcommand modules (agent/commands/<name>.py), in the order --help lists them.
COMMANDS = (
    "run",
    "tui",
    "batch",
    "eval",
    "show",
    "workflow",
    "replay",
    "cache",
    "snapshot",
    "sites",
    "local",
    "demo",
    "tools",
    "mcp",
    "serve",
)


class KiteArgumentParser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line on stderr and exits 2, and prints plain help."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"kite: error: {message} (see '{self.prog} --help')\n")

    def format_help(self) -> str:
        """The help as plain text: a command's docstring (its description) loses its ``literal`` markup."""
        return super().format_help().replace("``", "")


def build_parser() -> KiteArgumentParser:
    parser = KiteArgumentParser(prog="kite", description="Kite: an autonomous browser agent.")
    parser.add_argument("--version", action="version", version=f"kite {__version__}")
    parser.add_argument("--config", metavar="FILE", help="a YAML config file merged over the defaults")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=KiteArgumentParser)
    for name in COMMANDS:
        importlib.import_module(f"kite_browser.agent.commands.{name}").register(sub)
    return parser


BROWSERLESS_COMMANDS = frozenset({"show", "sites", "local", "workflow"})


def check_chromium(args: argparse.Namespace) -> None:
    """A Chromium path the user gave (``--chromium``, ``KITE_CHROMIUM``, ``browser.chromium_path`` in the
    config file) that cannot run is a usage error before anything starts, naming where it was set."""
    if args.command in BROWSERLESS_COMMANDS:
        return
    from kite_browser.agent.browser.chromium import check_explicit
    from kite_browser.agent.config import chromium_setting

    if getattr(args, "chromium", None):
        check_explicit(args.chromium, "--chromium")
    elif not getattr(args, "attach", None):
        check_explicit(*chromium_setting(getattr(args, "config", None)))


def _joined(argv: Sequence[str]) -> list[str]:
    """``--policy -NAME`` as ``--policy=-NAME``: argparse reads a value that starts with "-" as an option."""
    out: list[str] = []
    for arg in argv:
        if out and out[-1] == "--policy" and arg.startswith("-") and not arg.startswith("--"):
            out[-1] = f"--policy={arg}"
        else:
            out.append(arg)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(_joined(sys.argv[1:] if argv is None else argv))
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        check_chromium(args)
        result = args.func(args)  # an exit code, or a coroutine giving one
        if inspect.iscoroutine(result):
            result = asyncio.run(result)
        return int(result or 0)
    except (UsageError, ConfigError) as exc:
        print(f"kite: error: {exc.message}", file=sys.stderr)
        return 2
    except KiteError as exc:
        print(f"kite: {exc.type}: {exc.message}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, asyncio.CancelledError):
        print("kite: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # stdout went to `| head`, which has what it wanted: no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the exit's flush writes nowhere
        return 1


def exit_with(code: int) -> NoReturn:
    """Leave the process. Freezing the heap first skips the interpreter's final garbage collection over
    the large object graphs of litellm and friends, which costs about a second of CPU at every exit."""
    gc.freeze()
    sys.exit(code)


def entry() -> NoReturn:
    """The ``kite`` console script and ``python -m kite_browser.agent``."""
    exit_with(main())


if __name__ == "__main__":
    entry()
