"""Options shared by the commands that run the agent (run, tui, batch, eval) and their config overrides."""

from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.browser.start_url import check_start_url
from kite_browser.agent.config import KiteConfig, check_domain, load_config

__all__ = ["check_start_url"]  # moved to agent/browser/start_url.py; the commands import it from here


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got '{text}'") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got '{text}'")
    return value


def domain(text: str) -> str:
    """argparse type of --allowed-domain / --blocked-domain: a host name (a bad one is a usage error)."""
    try:
        return check_domain(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def port_number(text: str) -> int:
    """argparse type of --port: 0-65535 (0 = any free port)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got '{text}'") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port number 0-65535, got '{text}'")
    return value


def check_runs_dir(path: str) -> None:
    """Fail before anything starts when run records cannot be written under ``path``."""
    target = Path(path).expanduser()
    try:
        target.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=target):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise UsageError(
            f"cannot write run records in {target}: {reason}; choose another --runs-dir (or run.runs_dir)"
        ) from None
    if not os.access(target, os.W_OK | os.X_OK):
        raise UsageError(
            f"cannot write run records in {target}: permission denied; choose another --runs-dir"
        )


def check_out_file(path: str | None, flag: str) -> None:
    """Fail before anything starts when the file ``flag`` names cannot be written: a folder, a read-only
    file, or a read-only folder to create it in (else a whole batch or eval ran and its results were lost)."""
    if not path:
        return
    target = Path(path).expanduser()
    if target.is_dir():
        raise UsageError(f"{flag} {path} is a folder: give a file name (one inside it, or elsewhere)")
    folder = next((p for p in target.absolute().parents if p.exists()), None)
    writable = os.access(target, os.W_OK) if target.exists() else folder is None or os.access(folder, os.W_OK)
    if not writable:
        raise UsageError(f"{flag} {path}: permission denied; choose another file")


def add_model_options(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("model")
    g.add_argument(
        "--model", help="litellm model string (openai/gpt-4o-mini, anthropic/..., ollama/..., local)"
    )
    g.add_argument("--api-base", help="base URL of an OpenAI-compatible server (Ollama, llama.cpp, vLLM ...)")
    g.add_argument("--vision", dest="vision", action="store_true", default=None, help="send screenshots")
    g.add_argument("--no-vision", dest="vision", action="store_false", help="never send screenshots")


def add_agent_options(parser: argparse.ArgumentParser) -> None:
    add_model_options(parser)
    g = parser.add_argument_group("agent")
    g.add_argument("--max-steps", type=positive_int, help="stop after N steps")
    g.add_argument("--observation", choices=["auto", "layered"], help="what the model sees each step")
    g.add_argument("--language", choices=["en", "zh"], help="language of the prompts")
    g.add_argument("--trace", action="store_true", default=None, help="record a Playwright trace (trace.zip)")
    g.add_argument("--runs-dir", help="where run records go (default: runs/)")
    s = parser.add_argument_group("safety")
    s.add_argument(
        "--secret",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a secret the model can type as <secret>NAME</secret> (NAME@domain=VALUE limits it)",
    )
    s.add_argument(
        "--allowed-domain",
        action="append",
        type=domain,
        default=None,
        metavar="DOMAIN",
        help="only these domains",
    )
    s.add_argument(
        "--blocked-domain",
        action="append",
        type=domain,
        default=None,
        metavar="DOMAIN",
        help="never these domains",
    )
    s.add_argument(
        "--approve",
        action="append",
        default=None,
        metavar="LEVEL|ACTION",
        help=(
            "approve without asking (e.g. confirm, executeJS); without it, kite run in a terminal and "
            "kite tui ask you, and runs with nobody to ask deny"
        ),
    )


def agent_overrides(args: argparse.Namespace) -> dict[str, object]:
    get = lambda name: getattr(args, name, None)  # noqa: E731
    return {
        "llm.model": get("model"),
        "llm.api_base": get("api_base"),
        "llm.vision": get("vision"),
        "agent.max_steps": get("max_steps"),
        "agent.observation": get("observation"),
        "agent.language": get("language"),
        "run.trace": get("trace"),
        "run.runs_dir": get("runs_dir"),
        "safety.allowed_domains": get("allowed_domain"),
        "safety.blocked_domains": get("blocked_domain"),
        "safety.approve": get("approve"),
    }


def load_with_args(args: argparse.Namespace, extra: Mapping[str, object] | None = None) -> KiteConfig:
    from kite_browser.agent.commands._browser_opts import browser_overrides

    overrides = {**browser_overrides(args), **agent_overrides(args), **(extra or {})}
    config = load_config(getattr(args, "config", None), overrides)
    if config.llm.vision is not None and config.llm.mode == "auto":
        config.llm.mode = "hybrid" if config.llm.vision else "dom"
    return config


EVAL_ONLY_MODELS = frozenset({"kite/oracle"})


def refuse_unusable_models(*models: str | None, eval_only_ok: bool = False) -> None:
    """Before anything starts: ``kite/oracle`` solves the eval suites from their plans, it is not a model for
    ``kite run``/``batch``/``serve`` (``kite eval`` passes ``eval_only_ok``); a model litellm cannot route
    (``--model gpt4o``, an unregistered ``kite/...``) would only fail at the first step, after the browser
    started."""
    from kite_browser.agent.llm.resolve import model_problem

    for model in dict.fromkeys(m for m in models if m):
        if model in EVAL_ONLY_MODELS and eval_only_ok:
            continue  # the eval harness builds it from each task's plan
        if model in EVAL_ONLY_MODELS:
            raise UsageError(
                f"{model} is the eval suites' deterministic solver and only runs under 'kite eval' "
                f"(e.g. kite eval sites --model {model}); pick a real model for this command"
            )
        problem = model_problem(model, can_resolve_local=True)
        if problem:
            raise UsageError(problem)
