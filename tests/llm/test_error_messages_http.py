"""What a user reads when the model misbehaves, through a real HTTP server (tests/fixtures/openai_server.py)
and the real litellm/OpenAI SDK path: each thing said once, the key hint that fits the server, no warnings
on the terminal, and plain-text tool arguments called what they are."""

from __future__ import annotations

import litellm  # imported once here, not inside the first timed attempt
import pytest

from kite_browser.agent.llm.error_map import map_exception
from kite_browser.agent.llm.errors import LLMAuthError, LLMUnavailableError
from kite_browser.agent.llm.parsing import ParseError, parse_reply
from tests.fixtures.openai_server import Reply, Status
from tests.llm.test_reply_faults_http import fake_client

USER = [{"role": "user", "content": "click the button"}]


@pytest.mark.parametrize("code", [500, 503])
async def test_a_provider_failure_says_each_thing_once(openai_server, code):
    openai_server.push(Status(code, message="the GPU fell over"), Status(code, message="the GPU fell over"))
    with pytest.raises(LLMUnavailableError) as info:
        await fake_client(openai_server, max_attempts=2).complete(USER)
    message = info.value.message
    assert message.count("the GPU fell over") == 1, message
    assert "Error:" not in message and "OpenAIException" not in message and "litellm" not in message, message
    assert message.lower().count("gave up") == 1 and message.count("retried") <= 1, message
    assert f"HTTP {code}" in message and "2 attempts" in message and "llm.max_attempts" in message, message


async def test_a_rejected_placeholder_key_names_the_server_and_kites_setting(openai_server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    openai_server.push(Status(401, message="Invalid API key"))
    with pytest.raises(LLMAuthError) as info:
        await fake_client(openai_server).complete(USER)
    message = info.value.message
    assert openai_server.base_url in message and "placeholder" in message, message
    assert "llm.api_key" in message and "KITE_API_KEY" in message, message
    assert "OPENAI_API_KEY" not in message, message
    assert message.count("Invalid API key") == 1 and "AuthenticationError" not in message, message


async def test_a_rejected_configured_key_says_it_came_from_llm_api_key(openai_server):
    openai_server.push(Status(401, message="Invalid API key"))
    with pytest.raises(LLMAuthError) as info:
        await fake_client(openai_server, api_key="sk-wrong").complete(USER)
    message = info.value.message
    assert openai_server.base_url in message and "llm.api_key" in message, message
    assert "OPENAI_API_KEY" not in message and "placeholder" not in message, message
    assert "sk-wrong" not in message


def test_a_rejected_environment_key_names_the_server_and_the_variable(monkeypatch):
    """A remote OpenAI-compatible server and no llm.api_key: the SDK sends OPENAI_API_KEY (no placeholder)."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    refused = litellm.AuthenticationError("bad key", "openai", "fake")
    message = map_exception(refused, "openai/fake", "https://llm.example/v1").message
    assert "the server at https://llm.example/v1" in message, message
    assert "OPENAI_API_KEY from the environment" in message and "llm.api_key" in message, message
    assert "sk-env" not in message


async def test_numeric_string_usage_counts_print_no_warning(openai_server, recwarn):
    openai_server.push(Reply(content="hi", usage={"prompt_tokens": "12", "completion_tokens": "2"}))
    reply = await fake_client(openai_server).complete(USER)
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (12, 2)
    assert not [str(w.message) for w in recwarn if issubclass(w.category, UserWarning)]


async def test_plain_text_arguments_are_called_not_json_with_one_example(openai_server):
    openai_server.push(Reply(tool_calls=[("browser_action", "not json at all")]))
    reply = await fake_client(openai_server).complete(USER)
    with pytest.raises(ParseError) as info:
        parse_reply(reply)
    message = str(info.value)
    assert "not valid JSON" in message and "'not json at all'" in message, message
    assert 'needs "action"' not in message, message
    assert message.count('{"action": ') == 1, message
