"""Models by one door: ``agent.llm.resolve`` is the only code that knows ``local`` and ``kite/…``."""

from __future__ import annotations

import ast
from pathlib import Path

import litellm
import pytest

from kite_browser.agent.config import KiteConfig, LLMConfig
from kite_browser.agent.llm.client import LiteLLMModel
from kite_browser.agent.llm.errors import LLMBadRequestError
from kite_browser.agent.llm.fakes import FakeReply, register_fake, unregister_fake
from kite_browser.agent.llm.model_names import is_fake, is_local
from kite_browser.agent.llm.own_models import (
    handler_of,
    is_registered,
    register_model,
    registered_model,
    unregister_model,
)
from kite_browser.agent.llm.resolve import model_problem, prepare_config, resolve_model
from kite_browser.agent.llm.testing import FunctionModel
from tests.test_imports import parse_file

ROOT = Path(__file__).resolve().parents[2]


def _config(model: str | None) -> KiteConfig:
    return KiteConfig(llm=LLMConfig(model=model))


async def test_a_kite_model_gets_its_provider_and_passes_unchanged() -> None:
    litellm.custom_provider_map = [p for p in litellm.custom_provider_map if p.get("provider") != "kite"]
    config = await prepare_config(_config("kite/scripted"))
    assert config.llm.model == "kite/scripted"
    assert any(p.get("provider") == "kite" for p in litellm.custom_provider_map)


async def test_another_model_passes_unchanged_and_local_can_be_left_for_a_worker() -> None:
    config = _config("openai/gpt-4o-mini")
    assert await prepare_config(config) is config
    assert (await prepare_config(_config(None), start_local=False)).llm.model == "local"


def test_names() -> None:
    assert is_local(None) and is_local("") and is_local("local") and not is_local("openai/local")
    assert is_fake("kite/oracle") and not is_fake("openai/kite/x") and not is_fake(None)
    assert model_problem("kite/no-such-fake", True) == "no model kite/no-such-fake is registered"
    assert model_problem("local", False) is not None and model_problem("local", True) is None


def test_no_other_module_compares_a_model_with_local_or_kite() -> None:
    """The strings ``"local"`` compared with a model, or ``startswith("kite/")``, appear only in the door."""
    found = []
    for pkg in ("agent", "safety", "evals"):
        for path in (ROOT / pkg).rglob("*.py"):
            if path.name == "resolve.py":
                continue
            for node in ast.walk(parse_file(path)):
                if isinstance(node, ast.Compare) and any(
                    isinstance(c, ast.Constant) and c.value == "local" for c in [node.left, *node.comparators]
                ):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
                if isinstance(node, ast.Call) and ast.unparse(node.func).endswith(
                    ("startswith", "removeprefix")
                ):
                    if any(isinstance(a, ast.Constant) and a.value == "kite/" for a in node.args):
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found


def test_resolve_model_passes_a_model_through_and_builds_one_from_a_string() -> None:
    mine = FunctionModel(lambda _messages, _view: "hi", name="kite/mine")
    assert resolve_model(mine) is mine
    real = resolve_model("openai/gpt-4o-mini", LLMConfig(model="kite/scripted", api_key="sk-test"))
    assert isinstance(real, LiteLLMModel) and real.name == "openai/gpt-4o-mini"
    assert real.config.api_key == "sk-test"  # the rest of the config travels
    assert resolve_model(None, LLMConfig(model="openai/gpt-4o-mini")).name == "openai/gpt-4o-mini"
    with pytest.raises(LLMBadRequestError, match="local"):
        resolve_model("local")


async def test_one_registry_holds_both_kinds_of_kite_model() -> None:
    """A model built in-process and a handler inside litellm's ``kite`` provider share one registry: both
    resolve by name, both are known to ``model_problem``, and unregistering either is one call."""
    mine = FunctionModel(lambda _messages, _view: "hi", name="kite/in-process")
    register_model("kite/in-process", mine)
    register_fake(
        "through-litellm", lambda _messages, _tools, _kwargs: FakeReply(content="from the provider")
    )
    try:
        assert resolve_model("kite/in-process") is mine
        assert registered_model(LLMConfig(model="kite/in-process")) is mine
        through = resolve_model("kite/through-litellm")
        assert isinstance(through, LiteLLMModel) and handler_of("kite/through-litellm") is not None
        reply = await through.complete([{"role": "user", "content": "hi"}], None, view=None)
        assert reply.content == "from the provider"
        assert model_problem("kite/in-process", True) is None
        assert model_problem("kite/through-litellm", True) is None
    finally:
        unregister_model("kite/in-process")
        unregister_fake("through-litellm")
    assert not is_registered("kite/in-process") and not is_registered("kite/through-litellm")
    assert model_problem("kite/in-process", True) == "no model kite/in-process is registered"


def test_kite_models_are_named_kite_slash_something() -> None:
    with pytest.raises(ValueError, match="kite/<name>"):
        register_model("mine", FunctionModel(lambda _messages, _view: "hi"))
