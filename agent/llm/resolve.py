"""Models by one door: the only code that gives ``local`` and ``kite/…`` their meaning.

``resolve_model(config)`` turns the configured model into one that can run here: a ``kite/…`` fake gets the
litellm provider it lives in; ``local`` (or no model at all) becomes the bundled local model's server,
started or shared, with its capabilities; any other model string is litellm's and passes unchanged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kite_browser.agent.errors import KiteError, UsageError

if TYPE_CHECKING:
    from kite_browser.agent.config import KiteConfig

LOCAL_MODEL = "local"
"""The bundled local model (also what an unset model means)."""
FAKE_PREFIX = "kite/"
"""Kite's own models: the fakes of ``agent.llm.fakes`` and models registered in-process (``register_model``)."""

NO_MODEL_HELP = """no model is configured.
Set KITE_MODEL (or pass --model) to any litellm model string, with the provider's usual key:
  OpenAI     KITE_MODEL=openai/gpt-4o-mini              OPENAI_API_KEY=...
  Anthropic  KITE_MODEL=anthropic/claude-sonnet-4-5     ANTHROPIC_API_KEY=...
  Gemini     KITE_MODEL=gemini/gemini-2.5-flash         GEMINI_API_KEY=...
  DeepSeek   KITE_MODEL=deepseek/deepseek-chat          DEEPSEEK_API_KEY=...
  Ollama     KITE_MODEL=ollama/qwen2.5:7b               (ollama serve on localhost:11434)
  Any OpenAI-compatible server (llama.cpp, vLLM, LM Studio):
             KITE_MODEL=openai/NAME KITE_API_BASE=http://127.0.0.1:8080/v1
  The bundled local model: KITE_MODEL=local (downloads ~1.1 GB on first use)"""


def is_local(model: str | None) -> bool:
    """``model`` names the bundled local model (``local``, or nothing configured)."""
    return model in (None, "", LOCAL_MODEL)


def is_fake(model: str | None) -> bool:
    """``model`` is one of Kite's own (``kite/…``): a fake, the eval oracle, a model registered in-process."""
    return bool(model) and str(model).startswith(FAKE_PREFIX)


def model_or_local(model: str | None) -> str:
    """The model string to show for ``model`` (``local`` when none is configured)."""
    return model or LOCAL_MODEL


async def resolve_model(config: KiteConfig, *, start_local: bool = True) -> KiteConfig:
    """``config`` with a model that can run here. ``start_local=False`` leaves the local model as ``local``
    (a Ray worker starts or shares the server of its own node). A local model that cannot start is a
    ``UsageError`` that says how to configure another."""
    model = config.llm.model
    if is_fake(model):
        from kite_browser.agent.llm.fakes import register_fakes

        register_fakes()
        return config
    if not is_local(model):
        return config
    if not start_local:
        return config.model_copy(update={"llm": config.llm.model_copy(update={"model": LOCAL_MODEL})})
    from kite_browser.agent.llm.local import config_for_server, ensure_local_server

    try:
        return config_for_server(config, await ensure_local_server(config))
    except KiteError as exc:
        raise UsageError(
            f"{NO_MODEL_HELP}\n(the bundled local model could not start: {exc.message})"
        ) from exc
