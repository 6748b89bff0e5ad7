"""``GET /api/settings``: what the server runs with, for the panel's settings page: the model, the providers
whose API key is set (names only, never a value), the domain lists, approvals, modules and secret names."""

from __future__ import annotations

from fastapi import APIRouter, Request

from kite_browser.agent.config import env_with_prefix
from kite_browser.agent.server.run_models import Settings

KEY_SUFFIX = "_API_KEY"


def providers_with_keys() -> list[str]:
    """``OPENAI_API_KEY`` set (non-empty) -> ``openai``; Kite's own ``KITE_API_KEY`` -> ``kite``."""
    names = {
        name[: -len(KEY_SUFFIX)].lower()
        for name, value in env_with_prefix("").items()
        if name.endswith(KEY_SUFFIX) and value.strip()
    }
    return sorted(names)


def router() -> APIRouter:
    api = APIRouter(prefix="/api", tags=["settings"])

    @api.get("/settings", summary="The server's settings (names only: no key or secret value)")
    async def settings(request: Request) -> Settings:
        state = request.app.state.kite
        config = state.config
        return Settings(
            model=config.llm.model,
            providers=providers_with_keys(),
            allowed_domains=list(config.safety.allowed_domains),
            blocked_domains=list(config.safety.blocked_domains),
            approve=list(config.safety.approve),
            modules=list(state.registry.names),
            secrets=state.secrets.names(),
            runs_dir=str(config.run.runs_dir),
        )

    return api
