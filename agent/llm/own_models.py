"""The one registry of Kite's own models (``kite/<name>``), by name: a ``Model`` built in-process
(``register_model``: ``FunctionModel``, ``ScriptedModel``, a bench's model) or a handler answered inside
litellm's ``kite`` provider (``agent.llm.fakes.register_fake``), so the real call path is tested. The door
(``agent.llm.resolve``) builds from it; the fakes' provider answers from it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kite_browser.agent.config import LLMConfig
from kite_browser.agent.llm.model import Model
from kite_browser.agent.llm.model_names import FAKE_PREFIX, is_fake

if TYPE_CHECKING:
    from kite_browser.agent.llm.fakes import FakeHandler

ModelFactory = Callable[[LLMConfig], Model]


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
