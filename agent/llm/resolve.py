"""Models by one door: the only code that gives ``local`` and ``kite/…`` their meaning.

* ``resolve_model(model, config) -> Model``: a ``Model`` passes through; a string names one: ``kite/<name>``
  is one of Kite's own models (below), any other string is litellm's (``LiteLLMModel``). ``local`` must be
  prepared first.
* ``prepare_config(config)``: the configured model made runnable here: ``local`` (or no model at all)
  becomes the bundled local model's server, started or shared, with its capabilities; a ``kite/…`` model
  gets the litellm provider it lives in; any other model string passes unchanged.
* ``model_problem(model)``: why a model string cannot run here, without calling it.
* ``check_model_request(model, api_base)`` (in the leaf ``agent.llm.model_names``, with the names): with ``KITE_REFUSE_MODEL_REQUESTS=1`` (Kite's tests set it, and
  the ``kite`` processes they start inherit it) only Kite's own models and servers on this machine answer;
  any other request raises ``ModelRequestRefused`` before it leaves (pydantic-ai's ``ALLOW_MODEL_REQUESTS``).

Kite's own models live in one registry, by name: a ``Model`` built in-process (``register_model``:
``FunctionModel``, ``ScriptedModel``, a bench's model) or a handler answered inside litellm's ``kite``
provider, so the real call path is tested (``agent.llm.fakes.register_fake``; ``kite/scripted`` is one).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from kite_browser.agent.base.errors import KiteError, UsageError
from kite_browser.agent.config import LLMConfig
from kite_browser.agent.llm.model import Model
from kite_browser.agent.llm.model_names import (
    LOCAL_MODEL,
    SCRIPTED_MODEL,
    is_fake,
    is_local,
)
from kite_browser.agent.llm.own_models import is_registered, registered_model

if TYPE_CHECKING:
    from kite_browser.agent.config import KiteConfig

ConfigPreparer = Callable[["KiteConfig"], Awaitable["KiteConfig"]]
"""``prepare_config`` (or a partial of it), as the batch runner and the server take it."""

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


def resolve_model(model: str | Model | None = None, config: LLMConfig | None = None) -> Model:
    """The ``Model`` that ``model`` names (None: the config's ``llm.model``); ``config`` carries the rest of
    the LLM settings (key, base, retries). A ``Model`` is returned as it is."""
    if model is not None and not isinstance(model, str):
        return model
    llm = config if config is not None else LLMConfig()
    if model is not None and model != llm.model:
        llm = llm.model_copy(update={"model": model})
    if is_fake(llm.model) and (own := registered_model(llm)) is not None:
        return own
    if is_fake(llm.model):
        from kite_browser.agent.llm.fakes import register_fakes

        register_fakes()
    from kite_browser.agent.llm.client import LiteLLMModel

    return LiteLLMModel(llm)  # refuses an unprepared ``local`` with a message that says so


def model_problem(model: str, can_resolve_local: bool) -> str | None:
    """Why ``model`` cannot run here (None: it can), without calling it."""
    if is_local(model):
        return None if can_resolve_local else "the bundled local model is not available in this server"
    if is_fake(model):  # known without importing litellm (5 s), so a usage error after it stays quick
        return None if model == SCRIPTED_MODEL or is_registered(model) else f"no model {model} is registered"
    import litellm

    litellm.suppress_debug_info = True
    try:
        litellm.get_llm_provider(model)
    except Exception:
        return f"litellm knows no provider for {model!r}: use provider/model, e.g. openai/gpt-4o-mini"
    return None


async def prepare_config(config: KiteConfig, *, start_local: bool = True) -> KiteConfig:
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
