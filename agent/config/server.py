"""The ``server`` (``kite serve``) and ``mcp`` (``kite mcp``) config sections. Part of the config loader (agent/config/), kept apart to
keep it small."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from kite_browser.agent.config.modules import Section


class ServerConfig(Section):
    host: str = "127.0.0.1"
    """Address ``kite serve`` listens on; any non-loopback address needs a token."""
    port: int = Field(8710, ge=0, le=65535)
    """Port ``kite serve`` listens on (0 = any free port)."""
    token: str | None = None
    """Bearer token every /api request must carry; None = a random one per start, printed in the start line."""
    cors_origins: list[str] = Field(default_factory=list)
    """Origins a browser may call the API from (CORS); empty = closed (only the server's own panel)."""
    max_body_bytes: int = Field(1_000_000, ge=1024)
    """Largest request body accepted; a larger one answers 413 body_too_large."""
    max_runs: int = Field(4, ge=1)
    """Most agent runs going at once; one more answers 429 too_many_runs."""
    confirm_timeout_s: float = Field(300.0, gt=0)
    """How long a run waits for an answer to a confirmation; then the action is denied."""


class McpConfig(Section):
    modules: list[str] = Field(default_factory=list)
    """Tool modules whose tools ``kite mcp`` offers next to its own browser tools (``--module NAME`` adds one);
    empty = Kite's browser tools only."""
    output_schemas: Literal["compact", "full", "none"] = "compact"
    """The ``outputSchema`` the tools whose results are data list (``agent/mcp/results.py``): compact = their
    top-level fields and types; full = the whole schemas (nested objects, descriptions: many times the
    tokens, in every page-action tool's definition); none = no schema and no ``structuredContent`` (text only)."""
    runs_dir: str | None = None
    """Where ``kite mcp`` writes its record (``mcp-<time>/record.jsonl``); None = <data dir>/mcp
    (``--runs-dir`` overrides)."""
