"""Agent runs over HTTP (being built: the skeleton has no runs yet)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from agent.config import KiteConfig
from safety.secrets import SecretStore

ModelResolver = Callable[[KiteConfig], Awaitable[KiteConfig]]


class RunManager:
    def __init__(
        self, config: KiteConfig, secrets: SecretStore, *, resolve_model: ModelResolver | None = None
    ) -> None:
        self.config, self.secrets, self.resolve_model = config, secrets, resolve_model

    async def stop_all(self) -> None:
        return None

    async def close(self) -> None:
        return None
