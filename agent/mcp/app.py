"""Putting ``kite mcp`` together: secrets, confirmer, record, browser hub, server; closed in ``finally``."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from collections.abc import AsyncIterator, Callable, Iterable

from kite_browser.agent.base.httpserve import until_done_or_terminated
from kite_browser.agent.browser.pool import BrowserPool
from kite_browser.agent.browser.tokens import warm_up
from kite_browser.agent.config import KiteConfig
from kite_browser.agent.mcp.confirm import ElicitConfirmer
from kite_browser.agent.mcp.hub import BrowserHub
from kite_browser.agent.mcp.record import Record
from kite_browser.agent.mcp.server import KiteMCP
from kite_browser.agent.modules.registry import ModuleRegistry
from kite_browser.safety.confirm import Gate
from kite_browser.safety.policy import SafetyPolicy
from kite_browser.safety.secrets import SecretStore


@contextlib.asynccontextmanager
async def kite_mcp(
    config: KiteConfig,
    *,
    secrets_cli: Iterable[str] = (),
    isolated: bool = False,
    registry: ModuleRegistry | None = None,
) -> AsyncIterator[KiteMCP]:
    """The server with its browser hub and the modules it offers (``config.mcp.modules``: none by default,
    or ``registry``); the browser (if started) and the modules are closed on exit. The record goes to
    ``config.mcp.runs_dir``, else ``<data dir>/mcp``."""
    secrets = SecretStore.from_sources(config.safety, cli=secrets_cli)
    confirmer = ElicitConfirmer(config.safety.approve)
    record = Record.create(config.mcp.runs_dir or config.data_dir() / "mcp", secrets)
    # Reading the safety rules and compiling their patterns takes a while (10 ms idle, far more on a loaded
    # machine): it is done once, in a thread, for the browser tools and for the modules' gate alike.
    policy, module_policy = await asyncio.to_thread(_policies, config, secrets.names())
    pool = BrowserPool(config.browser, downloads_dir=record.run_dir / "downloads")
    hub = BrowserHub(
        config,
        secrets=secrets,
        confirmer=confirmer,
        isolated=isolated,
        run_dir=record.run_dir,
        policy=policy,
        pool=pool,
    )
    modules = registry or ModuleRegistry(
        config, gate=Gate(module_policy, confirmer), pool=pool, names=config.mcp.modules
    )
    record.write("start", isolated=isolated, approve=list(config.safety.approve), modules=modules.names)
    # The tokenizer (litellm + tiktoken) takes seconds to load, and loading it on the event loop would
    # freeze every session meanwhile. It loads in a thread from the start; the
    # first call that counts tokens (off the loop too) waits for it, if it is not done by then.
    warming = asyncio.ensure_future(asyncio.to_thread(_warm_tokenizer))
    try:
        await modules.load()
        yield KiteMCP(hub, record, modules)
    finally:
        try:
            await modules.shutdown()
        finally:
            await hub.close()
        await asyncio.wait([warming])  # a thread cannot be stopped: let it finish before the loop closes
        record.write("stop")


def _policies(config: KiteConfig, secret_names: Iterable[str]) -> tuple[SafetyPolicy, SafetyPolicy]:
    """The browser tools' policy (it knows the secrets' names) and the modules' gate's (modules resolve no
    secrets, so their policy knows no names, as ``Gate.from_config`` builds it)."""
    return (
        SafetyPolicy.from_config(config.safety, secret_names=secret_names),
        SafetyPolicy.from_config(config.safety),
    )


def _warm_tokenizer() -> None:
    try:
        warm_up()
    except Exception:  # the first count tries again and reports whatever is wrong
        logging.getLogger("kite.mcp").warning("could not load the tokenizer ahead of time", exc_info=True)


async def serve(
    config: KiteConfig,
    *,
    secrets_cli: Iterable[str] = (),
    isolated: bool = False,
    http: bool = False,
    host: str = "127.0.0.1",
    port: int = 8931,
    token: str | None = None,
    ready: Callable[[str], None] | None = None,
) -> None:
    from kite_browser.agent.mcp.transport import run_http, run_stdio

    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="kite mcp: %(message)s")
    async with kite_mcp(config, secrets_cli=secrets_cli, isolated=isolated) as kite:
        if http:
            runner = asyncio.ensure_future(run_http(kite, host=host, port=port, token=token, ready=ready))
        else:
            runner = asyncio.ensure_future(run_stdio(kite))
        await until_done_or_terminated(runner)
