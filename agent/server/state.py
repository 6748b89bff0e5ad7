"""What one ``kite serve`` holds: the config, the token, the module registry and the agent runs."""

from __future__ import annotations

import secrets as _secrets
from collections.abc import Iterable

from kite_browser.agent.config import KiteConfig
from kite_browser.agent.modules.registry import ModuleRegistry
from kite_browser.agent.server.run import Run
from kite_browser.agent.server.run_models import RunRequest
from kite_browser.agent.server.runs import ConfigPreparer, RunManager
from kite_browser.safety.secrets import SecretStore


class ServerState:
    def __init__(
        self,
        config: KiteConfig,
        *,
        token: str | None = None,
        secrets_cli: Iterable[str] = (),
        registry: ModuleRegistry | None = None,
        prepare_config: ConfigPreparer | None = None,
    ) -> None:
        """``token``: the bearer token (default: ``server.token``, else a random one); ``secrets_cli``: the
        ``--secret name=value`` flags (runs ask for secrets by name: their values stay on the server)."""
        self.config = config
        self.token = token or config.server.token or _secrets.token_urlsafe(18)
        self.generated_token = not (token or config.server.token)
        self.registry = registry or ModuleRegistry(config)
        self.secrets = SecretStore.from_sources(config.safety, cli=secrets_cli)
        self.runs = RunManager(config, self.secrets, prepare_config=prepare_config, pool=self.registry.pool)
        self.console = Run("console", RunRequest(task="the tool console"), model="", max_steps=1, domains=[])
        """The tool console's questions, kept as a run keeps its own: a tool call made with ``ask`` puts its
        confirmation here, and the panel answers it through the same approval card as a run's."""

    async def start(self) -> None:
        await self.registry.load()

    async def stop_runs(self) -> None:
        """Stop every run (their records are saved as they end)."""
        await self.runs.stop_all()

    async def close(self) -> None:
        """Stop the runs, shut the modules down and with them the browser pool (each step even if one fails)."""
        try:
            await self.runs.close()
        finally:
            await self.registry.shutdown()
