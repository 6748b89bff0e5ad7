"""``kite local start|stop|status``: the bundled local model server (installed on first use)."""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
from typing import Any

from kite_browser.agent.config import load_config


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("local", help="the bundled local model (no API key needed)")
    sub = parser.add_subparsers(dest="local_command", metavar="ACTION", parser_class=type(parser))
    start = sub.add_parser("start", help="install on first use, start the server and keep it running")
    start.add_argument(
        "--foreground",
        action="store_true",
        help="stay attached and stop the server on Ctrl-C / SIGTERM (default: run until `kite local stop`)",
    )
    start.add_argument("--no-progress", action="store_true", help="no progress bar during the first install")
    start.set_defaults(func=run)
    sub.add_parser("stop", help="stop the local model server").set_defaults(func=run)
    status = sub.add_parser("status", help="installed?, model path and size, server pid/port/health")
    status.add_argument("--json", action="store_true", help="print one JSON object")
    status.set_defaults(func=run)
    parser.set_defaults(func=lambda args: parser.print_help() or 2)


async def run(args: argparse.Namespace) -> int:
    from kite_browser.agent.llm import local

    config = load_config(getattr(args, "config", None))
    if args.local_command == "stop":
        stopped = local.stop_local_server(config)
        print("local model server stopped" if stopped else "no local model server was running")
        return 0
    if args.local_command == "status":
        return _status(local.local_status(config), as_json=args.json)
    server = await local.ensure_local_server(
        config, progress=not args.no_progress, pinned=not args.foreground
    )
    print(f"local model server: pid {server.pid}, {server.api_base} (model {server.model})", flush=True)
    if not args.foreground:
        print("it keeps running until `kite local stop`")
        return 0
    print("Press Ctrl-C to stop.", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    local.stop_local_server(config)
    print("local model server stopped", flush=True)
    return 0


def _status(status: dict[str, Any], *, as_json: bool) -> int:
    if as_json:
        print(json.dumps(status, indent=1))
        return 0
    size = status["model_size"]
    print(f"installed:  {'yes' if status['installed'] else 'no (installed on first use, ~1.1 GB)'}")
    print(f"model:      {status['model_path']}" + (f" ({size / 1e9:.2f} GB)" if size else " (missing)"))
    if not status["running"]:
        print("server:     not running")
        return 0
    kind = "pinned (kite local stop)" if status["pinned"] else f"used by pids {status['clients']}"
    print(
        f"server:     pid {status['pid']}, port {status['port']}, {'healthy' if status['healthy'] else 'NOT healthy'}"
    )
    print(f"            {status['api_base']} · {kind}")
    print(f"log:        {status['log']}")
    return 0
