"""Running ``kite serve``: the app on uvicorn, the start line, and a graceful end on SIGTERM/SIGHUP/SIGINT
(runs stopped and their records saved, then the server, then browsers and modules closed)."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from collections.abc import Callable, Iterable

from kite_browser.agent.base.httpserve import (
    check_http_options,
    serve_asgi,
    until_done_or_terminated,
    url_host,
)
from kite_browser.agent.config import KiteConfig
from kite_browser.agent.server.app import create_app
from kite_browser.agent.server.runs import ConfigPreparer
from kite_browser.agent.server.state import ServerState


def start_line(host: str, port: int, state: ServerState) -> str:
    url = f"http://{url_host(host)}:{port}/"
    if state.generated_token:
        return f"kite serve: listening on {url}#token={state.token}"
    return f"kite serve: listening on {url} (the token is the one you set)"


async def serve(
    config: KiteConfig,
    *,
    host: str | None = None,
    port: int | None = None,
    token: str | None = None,
    secrets_cli: Iterable[str] = (),
    prepare_config: ConfigPreparer | None = None,
    ready: Callable[[str], None] | None = None,
) -> None:
    host = host or config.server.host
    port = config.server.port if port is None else port
    check_http_options(host, token or config.server.token)
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="kite serve: %(message)s")
    state = ServerState(config, token=token, secrets_cli=secrets_cli, prepare_config=prepare_config)
    app = create_app(state)

    def started(bound: int) -> None:
        line = start_line(host, bound, state)
        if ready is not None:
            ready(line)
        else:
            print(line, file=sys.stderr, flush=True)

    runner = asyncio.ensure_future(serve_asgi(app, host, port, ready=started))
    await until_done_or_terminated(
        runner,
        signals=(signal.SIGTERM, signal.SIGHUP, signal.SIGINT),
        before_stop=state.stop_runs,
    )
