"""One fair queue for a model server on this machine, shared by every Kite process that calls it.

The bundled llama.cpp server on 2 cores does one request at a time; two Kites that call it together each wait
behind the other, and a limit that counts the wait times out calls the server never started. So calls take a
ticket and go in ticket order: a ticket is a file ``<seq>-<pid>-<nonce>`` in a folder per server (under the
Kite data folder, ``queue/<host>-<port>/``); the call at the head of the queue runs, the others wait and
say how many requests are ahead of them. The call's time limit starts when its turn comes. A ticket of a
process that died is ignored (its pid is gone) and removed by whoever sees it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from urllib.parse import urlparse

from kite_browser.agent.llm.local_install import file_lock
from kite_browser.agent.llm.local_watchdog import alive

POLL_S = 0.2
"""How often a waiting call looks at the queue again (a file listing: cheap)."""
Notify = Callable[[str], Awaitable[None]]


def queue_dir(root: Path, api_base: str) -> Path:
    """The queue folder of the server at ``api_base`` under ``root`` (the Kite data folder)."""
    parts = urlparse(api_base)
    return root / "queue" / f"{parts.hostname or 'local'}-{parts.port or 0}"


def _seq(name: str) -> int:
    return int(name.split("-", 1)[0])


def _owner(name: str) -> int:
    return int(name.split("-", 2)[1])


def _take(folder: Path) -> Path:
    """A new ticket, numbered after every ticket there (under the folder's lock: no two get one number)."""
    folder.mkdir(parents=True, exist_ok=True)
    with file_lock(folder / ".lock"):
        tickets = [p.name for p in folder.iterdir() if p.name[:1].isdigit()]
        seq = max((_seq(n) for n in tickets), default=0) + 1
        ticket = folder / f"{seq:012d}-{os.getpid()}-{secrets.token_hex(4)}"
        ticket.touch()
    return ticket


def ahead_of(ticket: Path) -> int:
    """How many live tickets come before ``ticket``; tickets of dead processes are removed on the way."""
    mine, ahead = _seq(ticket.name), 0
    for path in ticket.parent.iterdir():
        name = path.name
        if not name[:1].isdigit() or _seq(name) >= mine:
            continue
        if _owner(name) != os.getpid() and not alive(_owner(name)):
            path.unlink(missing_ok=True)
            continue
        ahead += 1
    return ahead


def _said(ahead: int) -> str:
    return f"waiting for the local model: {ahead} request{'s' if ahead != 1 else ''} ahead"


@contextlib.asynccontextmanager
async def turn(folder: Path, notify: Notify | None = None) -> AsyncIterator[float]:
    """Wait for this call's turn at the server whose queue is ``folder``; yields the seconds spent waiting.
    Each change in the number of requests ahead is told to ``notify``. The ticket is given back on exit
    (also on an error or a cancel), which lets the next call go."""
    ticket = await asyncio.to_thread(_take, folder)
    loop = asyncio.get_running_loop()
    started, last = loop.time(), -1
    try:
        while (ahead := await asyncio.to_thread(ahead_of, ticket)) > 0:
            if ahead != last and notify is not None:
                await notify(_said(ahead))
            last = ahead
            await asyncio.sleep(POLL_S)  # polling the queue folder for our turn
        yield loop.time() - started
    finally:
        ticket.unlink(missing_ok=True)
