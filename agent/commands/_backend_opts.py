"""``--backend local|ray``, ``--address``, ``--workers`` for ``kite batch`` and ``kite eval``."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.config import KiteConfig, provider_env

if TYPE_CHECKING:
    from kite_browser.agent.batch.backend import Backend


def add_backend_options(parser: argparse.ArgumentParser) -> None:
    from kite_browser.agent.commands._agent_opts import positive_int

    g = parser.add_argument_group("backend")
    g.add_argument(
        "--backend", choices=["local", "ray"], default="local", help="where tasks run (default local)"
    )
    g.add_argument("--address", help="Ray: the cluster's head address (default: start a local Ray)")
    g.add_argument(
        "--workers", type=positive_int, default=2, help="Ray: workers, one Chromium each (default 2)"
    )


def check_backend(args: argparse.Namespace) -> None:
    """Refuse the Ray backend before anything starts when Ray is missing or the address is empty."""
    if args.backend != "ray":
        return
    if args.address is not None and not args.address.strip():
        raise UsageError("--address: give the Ray head address, e.g. ray://10.0.0.5:10001")
    from kite_browser.agent.batch.ray_backend import require_ray

    require_ray()


def make_backend(args: argparse.Namespace, config: KiteConfig, concurrency: int) -> Backend:
    """The backend the options name; ``concurrency`` is per worker for Ray."""
    if args.backend != "ray":
        from kite_browser.agent.batch.local import LocalBackend

        return LocalBackend(config.browser, concurrency=concurrency)
    from kite_browser.agent.batch.ray_backend import RayBackend

    return RayBackend(
        config.browser,
        address=args.address,
        workers=args.workers,
        concurrency=concurrency,
        env_vars=provider_env(),  # model keys reach the workers through Ray, never the results
        shared_runs_dir=config.batch.ray.shared_runs_dir,
    )


def records_dir(args: argparse.Namespace, config: KiteConfig) -> str:
    """Where the run records end up: the runs folder, or the Ray workers' shared folder."""
    shared = config.batch.ray.shared_runs_dir
    return shared if args.backend == "ray" and shared else config.run.runs_dir
