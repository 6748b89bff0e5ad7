"""The prompt templates: composed, StrictUndefined, both languages, and cache-friendly."""

from __future__ import annotations

import pytest

from agent.browser.actions import ACTION_NAMES
from agent.prompt import PromptBuilder


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("function_calling", [True, False])
@pytest.mark.parametrize("vision", [True, False])
def test_every_variant_renders(language, function_calling, vision):
    p = PromptBuilder("buy a mug", language, function_calling, vision, "auto", 10, ["card"])
    system, user = p.system(), p.user(step=1, history=[], results=[], warnings=["w"], page="PAGE")
    assert "<secret>card</secret>" in system
    assert ("```json" in system) is (not function_calling)
    assert all(name in system for name in ACTION_NAMES) is (not function_calling)
    assert "buy a mug" in user and "<untrusted_page>\nPAGE\n</untrusted_page>" in user


def test_the_system_prompt_does_not_depend_on_the_task():
    a = PromptBuilder("buy a mug", function_calling=False).system()
    b = PromptBuilder("delete my account", function_calling=False).system()
    assert a == b, "a task-specific system prompt defeats prompt caching across tasks"


def test_chinese_prompt_is_chinese():
    system = PromptBuilder("买一个杯子", language="zh").system()
    assert "浏览器" in system and "You are Kite" not in system


def test_layered_mode_tells_the_model_to_ask_for_elements():
    assert "getElements" in PromptBuilder("t", observation_mode="layered").system()
