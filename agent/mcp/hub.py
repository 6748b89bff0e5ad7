"""The browser behind ``kite mcp``: the pool's shared Chromium, started on the first call, and one
``ClientState`` per client session (``--isolated``: a fresh context each, own cookies) or one shared by all
(default).

A browser that closed or crashed is started again by the pool on the next call, and that call's answer says so.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

from kite_browser.agent.base.errors import BrowserError
from kite_browser.agent.browser.env import BrowserEnv, EnvSafety
from kite_browser.agent.browser.pool import BrowserPool
from kite_browser.agent.browser.session import ContextSession
from kite_browser.agent.config import KiteConfig
from kite_browser.safety.confirm import Confirmer
from kite_browser.safety.policy import SafetyPolicy
from kite_browser.safety.secrets import SecretStore

SHARED = "shared"


@dataclass
class ClientState:
    """What one client session works on: its environment (context, snapshotter, executor, gate) and the last
    snapshot it was sent."""

    key: str
    env: BrowserEnv
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    shown: dict[int, str] | None = None
    """Element lines (index -> line) of the last snapshot sent to this client, for diffs."""
    shown_url: str | None = None

    @property
    def ctx(self) -> ContextSession:
        return self.env.ctx


class BrowserHub:
    def __init__(
        self,
        config: KiteConfig,
        *,
        secrets: SecretStore,
        confirmer: Confirmer,
        isolated: bool = False,
        run_dir: Path | None = None,
        policy: SafetyPolicy | None = None,
        pool: BrowserPool | None = None,
    ) -> None:
        """``pool``: where the browser comes from (default: one of the hub's own; closed by ``close()``)."""
        self.config = config
        self.secrets = secrets
        self.confirmer = confirmer
        self.isolated = isolated
        self.run_dir = run_dir
        self.policy = policy or SafetyPolicy.from_config(config.safety, secret_names=secrets.names())
        """One policy for every client session (``kite_mcp`` builds it off the event loop)."""
        self.domains = self.policy.domains
        """One domain policy: the action policy's, also enforced at the network layer of every context."""
        downloads = run_dir / "downloads" if run_dir else None
        self.pool = pool or BrowserPool(config.browser, downloads_dir=downloads)
        self.clients: dict[str, ClientState] = {}
        self._clients_lock = asyncio.Lock()
        self._closed = False

    async def ensure_browser(self) -> str | None:
        """Start the browser (first call) or start it again (it closed or crashed); a note if restarted."""
        if self._closed:
            raise BrowserError("the MCP server is shutting down")
        _, restarted = await self.pool.shared(probe=True)
        if not restarted:
            return None
        for state in self.clients.values():
            state.shown, state.shown_url = None, None
        return "The browser had closed or crashed; Kite started it again (open tabs were lost)."

    async def client(self, session_key: str | None) -> ClientState:
        """The state of a client session (created on first use)."""
        key = session_key if (self.isolated and session_key) else SHARED
        async with self._clients_lock:  # two first calls of one session make one context
            state = self.clients.get(key)
            if state is None or state.ctx._closed:
                state = self.clients[key] = await self._new_client(key)
            return state

    async def _new_client(self, key: str) -> ClientState:
        safety = EnvSafety.from_config(self.config, self.confirmer, self.secrets, self.policy)
        downloads = self.run_dir / "downloads" / key[:12] if self.run_dir and key != SHARED else None
        env = await BrowserEnv.open(
            self.pool,
            self.config,
            safety,
            run_dir=self.run_dir,
            default=key == SHARED,
            downloads_dir=downloads,
        )
        return ClientState(key, env)

    async def drop_client(self, session_key: str) -> None:
        """Close an isolated client's context (its session ended)."""
        state = self.clients.pop(session_key, None)
        if state is not None and state.key != SHARED:
            await state.env.close()

    async def close(self) -> None:
        self._closed = True
        await self.pool.close()
