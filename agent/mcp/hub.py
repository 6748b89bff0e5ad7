"""The browser behind ``kite mcp``: one Chromium, started on the first call, and one ``ClientState`` per
client session (``--isolated``: a fresh context each, own cookies) or one shared by all (default).

A browser that closed or crashed is started again on the next call, and that call's answer says so.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from pathlib import Path

from playwright.async_api import Error as PlaywrightError

from kite_browser.agent.browser.executor import ActionExecutor
from kite_browser.agent.browser.observation import Observation
from kite_browser.agent.browser.session import BrowserSession, ContextSession
from kite_browser.agent.browser.snapshot import Snapshotter
from kite_browser.agent.config import KiteConfig
from kite_browser.agent.errors import BrowserError, KiteError
from kite_browser.safety.confirm import Confirmer, Gate
from kite_browser.safety.policy import SafetyPolicy
from kite_browser.safety.secrets import SecretStore

SHARED = "shared"
PROBE_TIMEOUT_S = 5.0


@dataclass
class ClientState:
    """What one client session works on: its context, executor, gate and the last snapshot it was sent."""

    key: str
    ctx: ContextSession
    executor: ActionExecutor
    gate: Gate
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    shown: dict[int, str] | None = None
    """Element lines (index -> line) of the last snapshot sent to this client, for diffs."""
    shown_url: str | None = None


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
    ) -> None:
        self.config = config
        self.secrets = secrets
        self.confirmer = confirmer
        self.isolated = isolated
        self.run_dir = run_dir
        self.policy = policy or SafetyPolicy.from_config(config.safety, secret_names=secrets.names())
        """One policy for every client session (``kite_mcp`` builds it off the event loop)."""
        self.domains = self.policy.domains
        """One domain policy: the action policy's, also enforced at the network layer of every context."""
        self.snapshotter = Snapshotter(config.snapshot)
        self.session: BrowserSession | None = None
        self.clients: dict[str, ClientState] = {}
        self._lock = asyncio.Lock()
        self._clients_lock = asyncio.Lock()
        self._closed = False

    async def ensure_browser(self) -> str | None:
        """Start the browser (first call) or start it again (it closed or crashed); a note if restarted."""
        async with self._lock:
            if self._closed:
                raise BrowserError("the MCP server is shutting down")
            if self.session is None:
                downloads = self.run_dir / "downloads" if self.run_dir else None
                self.session = BrowserSession(self.config.browser, downloads_dir=downloads)
                await self.session.start()
                return None
            if await self._responsive():
                return None
            await self.session.restart()
            for state in self.clients.values():
                state.shown, state.shown_url = None, None
                await self.domains.install(state.ctx.context)
            return "The browser had closed or crashed; Kite started it again (open tabs were lost)."

    async def _responsive(self) -> bool:
        """The browser answers (a round trip to the browser process, not to a page's renderer)."""
        assert self.session is not None
        if not self.session.is_alive:
            return False
        try:
            await asyncio.wait_for(self.session.context.context.cookies(), PROBE_TIMEOUT_S)
        except (PlaywrightError, TimeoutError, KiteError):
            return False
        return self.session.is_alive

    async def client(self, session_key: str | None) -> ClientState:
        """The state of a client session (created on first use)."""
        key = session_key if (self.isolated and session_key) else SHARED
        async with self._clients_lock:  # two first calls of one session make one context
            state = self.clients.get(key)
            if state is None or state.ctx._closed:
                state = self.clients[key] = await self._new_client(key)
            return state

    async def _new_client(self, key: str) -> ClientState:
        assert self.session is not None
        if key == SHARED:
            ctx = self.session.context
        else:
            downloads = self.run_dir / "downloads" / key[:12] if self.run_dir else None
            ctx = await self.session.new_context(downloads_dir=downloads)
        await self.domains.install(ctx.context)
        executor = ActionExecutor(
            ctx, self.snapshotter, self.config, run_dir=self.run_dir, secret_resolver=self.secrets.resolve
        )
        return ClientState(key, ctx, executor, Gate(self.policy, self.confirmer))

    async def drop_client(self, session_key: str) -> None:
        """Close an isolated client's context (its session ended)."""
        state = self.clients.pop(session_key, None)
        if state is not None and state.key != SHARED:
            with contextlib.suppress(Exception):
                await state.ctx.close()

    async def observation(self, state: ClientState) -> Observation:
        """The latest snapshot of the active tab if it is still of the current URL, else a fresh one."""
        page = state.ctx.page
        last = self.snapshotter.last(page)
        if last is not None and last.url == page.url:
            return last
        return await self.snapshot(state)

    async def snapshot(self, state: ClientState, *, include_all: bool = False) -> Observation:
        page = state.ctx.page
        obs = await self.snapshotter.snapshot(page, include_all=include_all)
        obs.summary.tabs = await state.ctx.tabs()
        obs.summary.dialog = state.ctx.pending_dialog
        return obs

    async def close(self) -> None:
        self._closed = True
        async with self._lock:
            if self.session is not None:
                await self.session.close()
