"""Models by one door: the only code that gives ``local`` and ``kite/…`` their meaning.

* ``resolve_model(model, config) -> Model``: a ``Model`` passes through; a string names one: ``kite/<name>``
  is one of Kite's own models (below), any other string is litellm's (``LiteLLMModel``). ``local`` must be
  prepared first.
* ``prepare_config(config)``: the configured model made runnable here: ``local`` (or no model at all)
  becomes the bundled local model's server, started or shared, with its capabilities; a ``kite/…`` model
  gets the litellm provider it lives in; any other model string passes unchanged.
* ``model_problem(model)``: why a model string cannot run here, without calling it.
* ``check_model_request(model, api_base)``: with ``KITE_REFUSE_MODEL_REQUESTS=1`` (Kite's tests set it, and
  the ``kite`` processes they start inherit it) only Kite's own models and servers on this machine answer;
  any other request raises ``ModelRequestRefused`` before it leaves (pydantic-ai's ``ALLOW_MODEL_REQUESTS``).

Kite's own models live in one registry, by name: a ``Model`` built in-process (``register_model``:
``FunctionModel``, ``ScriptedModel``, a bench's model) or a handler answered inside litellm's ``kite``
provider, so the real call path is tested (``agent.llm.fakes.register_fake``; ``kite/scripted`` is one).
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kite_browser.agent.config import LLMConfig
from kite_browser.agent.errors import KiteError, UsageError
from kite_browser.agent.llm.model import Model

if TYPE_CHECKING:
    from kite_browser.agent.config import KiteConfig
    from kite_browser.agent.llm.fakes import FakeHandler

ModelFactory = Callable[[LLMConfig], Model]
ConfigPreparer = Callable[["KiteConfig"], Awaitable["KiteConfig"]]
"""``prepare_config`` (or a partial of it), as the batch runner and the server take it."""

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


REFUSE_MODEL_REQUESTS = "KITE_REFUSE_MODEL_REQUESTS"
"""Set to 1 to refuse every request to a real model (not ``kite/…``, not a server on this machine)."""
_LOOPBACK = ("127.0.0.1", "::1", "localhost")


class ModelRequestRefused(BaseException):
    """A request to a real model while ``KITE_REFUSE_MODEL_REQUESTS=1``. A BaseException, so no retry loop
    or ``except Exception`` swallows it: the test that made it fails."""


def check_model_request(model: object, api_base: object = None) -> None:
    """Raise ``ModelRequestRefused`` when real model requests are refused and this is one."""
    if os.environ.get(REFUSE_MODEL_REQUESTS, "").strip().lower() not in ("1", "true", "yes"):
        return
    if isinstance(model, str) and is_fake(model):
        return
    from urllib.parse import urlsplit

    if isinstance(api_base, str) and urlsplit(api_base).hostname in _LOOPBACK:
        return  # a server on this machine: the bundled local model, a test's own fake server
    raise ModelRequestRefused(
        f"real model request refused ({REFUSE_MODEL_REQUESTS}=1): model={model!r}, api_base={api_base!r}"
    )


def is_local(model: str | None) -> bool:
    """``model`` names the bundled local model (``local``, or nothing configured)."""
    return model in (None, "", LOCAL_MODEL)


def is_fake(model: str | None) -> bool:
    """``model`` is one of Kite's own (``kite/…``): a fake, the eval oracle, a model registered in-process."""
    return bool(model) and str(model).startswith(FAKE_PREFIX)


def model_or_local(model: str | None) -> str:
    """The model string to show for ``model`` (``local`` when none is configured)."""
    return model or LOCAL_MODEL


@dataclass(frozen=True)
class OwnModel:
    """One registered ``kite/<name>``: built in-process, or a handler inside litellm's ``kite`` provider."""

    build: ModelFactory | None = None
    handler: FakeHandler | None = None


_OWN: dict[str, OwnModel] = {}
"""The one registry of Kite's own models, by their full name (``kite/scripted``)."""


def _own_name(name: str) -> str:
    if not is_fake(name) or name == FAKE_PREFIX:
        raise ValueError(f"Kite's own models are named {FAKE_PREFIX}<name> (got {name!r})")
    return name


def register_model(name: str, model: Model | ModelFactory) -> None:
    """Make the model string ``name`` (``kite/...``) build ``model`` (an instance, or a factory taking the LLM
    config)."""
    if isinstance(model, Model) and not isinstance(model, type):
        instance = model
        _OWN[_own_name(name)] = OwnModel(build=lambda _config: instance)
    else:
        _OWN[_own_name(name)] = OwnModel(build=model)


def register_handler(name: str, handler: FakeHandler) -> None:
    """Make ``name`` (``kite/...``) answer through litellm's ``kite`` provider with ``handler`` (use
    ``agent.llm.fakes.register_fake``, which installs the provider too)."""
    _OWN[_own_name(name)] = OwnModel(handler=handler)


def unregister_model(name: str) -> None:
    _OWN.pop(name, None)


def is_registered(name: str) -> bool:
    """Whether ``name`` is one of Kite's own models registered in this process (either kind)."""
    return name in _OWN


def handler_of(name: str) -> FakeHandler | None:
    """The litellm-provider handler registered under ``name`` (None: none, or an in-process model)."""
    entry = _OWN.get(name)
    return entry.handler if entry is not None else None


def handler_names() -> list[str]:
    return sorted(name for name, entry in _OWN.items() if entry.handler is not None)


def registered_model(config: LLMConfig) -> Model | None:
    """The in-process model registered under the config's model name, if any."""
    entry = _OWN.get(config.model or "")
    return entry.build(config) if entry is not None and entry.build is not None else None


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
    if is_fake(model):
        from kite_browser.agent.llm.fakes import register_fakes

        register_fakes()
        return None if is_registered(model) else f"no model {model} is registered"
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
