"""``kite sites serve``: serve the bundled local web apps until Ctrl-C."""

from __future__ import annotations

import argparse
import threading

from kite_browser.agent.base.errors import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "sites", help="the bundled local web apps (shop, accounts, mail, events, forms, ...)"
    )
    sub = parser.add_subparsers(dest="sites_command", metavar="ACTION", parser_class=type(parser))
    serve = sub.add_parser("serve", help="serve the bundled sites on 127.0.0.1 until Ctrl-C")
    serve.add_argument("--port", type=int, default=8765, help="main port (0 = any free port; default 8765)")
    serve.add_argument(
        "--cross-port", type=int, default=0, help="port of the cross-origin iframe origin (0 = any)"
    )
    serve.add_argument(
        "--variant",
        type=int,
        choices=(0, 1, 2, 3),
        default=0,
        help="a page variant: 1 ids and classes renamed, lists reordered; 2 also labels changed to synonyms and "
        "a product on page 2; 3 also a cookie banner to close first (0: as designed; default)",
    )
    serve.set_defaults(func=run)
    parser.set_defaults(func=lambda args: parser.print_help() or 2)


def run(args: argparse.Namespace) -> int:
    from kite_browser.evals.sites import SitesServer

    for name in ("port", "cross_port"):
        if not 0 <= getattr(args, name) <= 65535:
            raise UsageError(f"--{name.replace('_', '-')} must be between 0 and 65535")
    try:
        server = SitesServer(port=args.port, cross_port=args.cross_port, variant=args.variant).start()
    except OSError as exc:
        raise UsageError(f"cannot listen on 127.0.0.1:{args.port}/{args.cross_port}: {exc.strerror}") from exc
    try:  # from here on Ctrl-C stops cleanly, even while the banner is still being printed
        print(f"Kite sites:   {server.base_url}/", flush=True)
        print(f"Cross origin: {server.cross_origin_url}/", flush=True)
        if args.variant:
            print(f"Page variant: {args.variant}", flush=True)
        print(
            "Shop /shop/ · Account /account/ · Mail /mail/ · Events /events/ · Forms /forms/ · Dynamic /dynamic/ · "
            "Frames /frames/ · Tests /test/"
        )
        print("Press Ctrl-C to stop.", flush=True)
        threading.Event().wait()
    except KeyboardInterrupt:
        print("\nstopped", flush=True)
    finally:
        server.stop()
    return 0
