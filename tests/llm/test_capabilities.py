"""Capabilities from litellm's tables with config/providers.yaml overrides, and mode selection."""

from __future__ import annotations

import logging

import pytest

from kite_browser.agent.config import LLMConfig
from kite_browser.agent.llm.capabilities import Capabilities, capabilities_for, select_mode


@pytest.mark.parametrize(
    ("model", "fc", "vision", "min_tokens", "source"),
    [
        ("gpt-4o", True, True, 100_000, "litellm"),
        ("openai/gpt-4o-mini", True, True, 100_000, "litellm"),
        ("anthropic/claude-sonnet-4-5", True, True, 150_000, "litellm"),
        ("gemini/gemini-2.5-flash", True, True, 500_000, "litellm"),
        ("deepseek-chat", True, False, 60_000, "litellm"),
        ("deepseek/deepseek-chat", True, False, 60_000, "litellm"),
    ],
)
def test_known_models_come_from_litellm(model, fc, vision, min_tokens, source):
    caps = capabilities_for(model)
    assert (caps.function_calling, caps.vision, caps.source) == (fc, vision, source)
    assert caps.max_input_tokens >= min_tokens


def test_ollama_models_use_the_json_fallback_by_default():
    known = capabilities_for("ollama/llama3.1")  # litellm says it has tools; providers.yaml overrides
    assert (known.function_calling, known.vision, known.source, known.provider) == (
        False,
        False,
        "providers.yaml",
        "ollama",
    )
    llava = capabilities_for("ollama/llava")
    assert llava.vision is True and llava.function_calling is False
    assert capabilities_for("ollama/qwen2.5").max_input_tokens == 8192


def test_unknown_model_on_custom_api_base_is_conservative_and_logged(caplog):
    with caplog.at_level(logging.WARNING, logger="kite.llm"):
        caps = capabilities_for("openai/kite-test-foo", api_base="http://127.0.0.1:8080/v1")
    assert caps == Capabilities(
        function_calling=False,
        vision=False,
        max_input_tokens=8192,
        response_schema=True,  # llama.cpp, vLLM, LM Studio, Ollama's /v1 decode under a JSON schema
        source="unknown",
        provider="custom",
    )
    assert "not in litellm's tables" in caplog.text and "kite-test-foo" in caplog.text


def test_which_servers_take_a_reply_schema():
    """``response_schema`` (constrained replies): litellm's tables, then providers.yaml; unknown: none."""
    assert capabilities_for("local").response_schema is True
    assert capabilities_for("ollama/qwen2.5").response_schema is True
    assert capabilities_for("openai/gpt-4o").response_schema is True  # litellm's table
    assert capabilities_for("nobody-knows-this-model-xyz").response_schema is False


def test_known_model_behind_a_proxy_keeps_litellm_facts():
    caps = capabilities_for("openai/gpt-4o", api_base="https://llm-proxy.example.com/v1")
    assert caps.function_calling and caps.vision and caps.source == "litellm"


def test_totally_unknown_model():
    caps = capabilities_for("nobody-knows-this-model-xyz")
    assert (caps.function_calling, caps.vision, caps.max_input_tokens, caps.source) == (
        False,
        False,
        8192,
        "unknown",
    )


def test_local_entry_and_fakes():
    local = capabilities_for("local")
    assert (local.function_calling, local.vision, local.max_input_tokens, local.source) == (
        False,
        False,
        8192,
        "providers.yaml",
    )
    fake = capabilities_for("kite/scripted")
    assert fake.function_calling is True and fake.provider == "kite"


def test_per_model_pattern_beats_litellm():
    assert capabilities_for("dashscope/qwen-max").vision is False


def test_config_forces_function_calling_and_vision():
    config = LLMConfig(model="ollama/llama3.1", function_calling=True, vision=True)
    caps = capabilities_for("ollama/llama3.1", config=config)
    assert caps.function_calling is True and caps.vision is True
    off = capabilities_for("gpt-4o", config=LLMConfig(function_calling=False))
    assert off.function_calling is False and off.vision is True


def test_select_mode():
    vision = capabilities_for("gpt-4o")
    blind = capabilities_for("deepseek-chat")
    assert select_mode(vision) == "hybrid"
    assert select_mode(blind) == "dom"
    assert select_mode(vision, "dom") == "dom"
    assert select_mode(blind, "hybrid") == "dom"  # never send images to a model without vision
    assert select_mode(vision, "hybrid") == "hybrid"
