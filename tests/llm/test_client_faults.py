"""Fault handling through the real litellm call path, with the scripted fake (kite/scripted)."""

from __future__ import annotations

import time

import litellm
import pytest

from kite_browser.agent.llm.client import LLMClient, LLMReply
from kite_browser.agent.llm.errors import (
    ContextWindowError,
    LLMAuthError,
    LLMBadRequestError,
    LLMConnectionError,
    LLMRateLimitedError,
    LLMTimeoutError,
    LLMUnavailableError,
    LLMUnsupportedParamError,
)
from kite_browser.agent.llm.fakes import FakeReply, register_fake, unregister_fake
from kite_browser.agent.llm.parsing import ParseError, parse_reply
from kite_browser.agent.llm.schemas import tool_schemas

USER = [{"role": "user", "content": "click the button"}]
CLICK = {"name": "click", "arguments": {"index": 3}}


async def test_429_then_success_is_retried(scripted_model):
    scripted_model.script([CLICK], errors={1: "429"})
    reply = await LLMClient(scripted_model.config()).complete(USER)
    assert reply.attempts == 2
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [("click", '{"index": 3}')]
    assert len(scripted_model.calls) == 2


async def test_retry_after_is_honoured(scripted_model):
    scripted_model.script([CLICK], errors={1: "429:0.3"})
    client = LLMClient(scripted_model.config(), backoff_s=0.001)
    started = time.monotonic()
    reply = await client.complete(USER)
    assert reply.attempts == 2
    assert time.monotonic() - started >= 0.3


async def test_retry_after_beyond_budget_gives_up(scripted_model):
    scripted_model.script([CLICK], errors={1: "429:30"})
    started = time.monotonic()
    with pytest.raises(LLMRateLimitedError) as info:
        await LLMClient(scripted_model.config(retry_max_s=2.0, timeout_s=1.0)).complete(USER)
    assert time.monotonic() - started < 10
    assert info.value.context["attempts"] == 1
    assert info.value.to_dict()["error"] == "llm_rate_limited"


async def test_500_every_time_gives_up_typed_after_max_attempts(scripted_model):
    scripted_model.script([CLICK], errors={n: "500" for n in range(1, 10)})
    with pytest.raises(LLMUnavailableError) as info:
        await LLMClient(scripted_model.config(max_attempts=3)).complete(USER)
    assert len(scripted_model.calls) == 3
    assert info.value.context["attempts"] == 3
    assert "Gave up after 3 attempts in" in info.value.message
    assert info.value.to_dict()["error"] == "llm_unavailable"


async def test_503_and_connection_errors_are_retried(scripted_model):
    scripted_model.script([CLICK], errors={1: "503", 2: "connection"})
    reply = await LLMClient(scripted_model.config()).complete(USER)
    assert reply.attempts == 3


async def test_connection_errors_give_up_as_connection_error(scripted_model):
    scripted_model.script([CLICK], errors={n: "connection" for n in range(1, 10)})
    with pytest.raises(LLMConnectionError, match=r"check llm\.api_base"):
        await LLMClient(scripted_model.config(max_attempts=2)).complete(USER)
    assert len(scripted_model.calls) == 2


async def test_injected_timeout_is_retried_then_succeeds(scripted_model):
    scripted_model.script([CLICK], errors={1: "timeout"})
    reply = await LLMClient(scripted_model.config()).complete(USER)
    assert reply.attempts == 2


async def test_slow_model_times_out_after_timeout_s(scripted_model):
    scripted_model.script([CLICK, CLICK], latency_s=5.0)
    started = time.monotonic()
    with pytest.raises(LLMTimeoutError, match=r"llm\.timeout_s"):
        await LLMClient(scripted_model.config(timeout_s=0.05, max_attempts=2)).complete(USER)
    assert len(scripted_model.calls) == 2
    assert time.monotonic() - started < 4.0  # never waited for the full 5 s latency, even once


@pytest.mark.parametrize(
    ("kind", "error", "fix"),
    [
        ("auth", LLMAuthError, "llm.api_key"),
        ("bad_request", LLMBadRequestError, "refused the request"),
        ("unsupported", LLMUnsupportedParamError, "drop_params"),
        ("context_window", ContextWindowError, "Compact the history"),
    ],
)
async def test_non_retryable_errors_fail_fast(scripted_model, kind, error, fix):
    scripted_model.script([CLICK], errors={1: kind})
    with pytest.raises(error, match=fix) as info:
        await LLMClient(scripted_model.config()).complete(USER)
    assert len(scripted_model.calls) == 1
    assert info.value.type == error.type


async def test_auth_error_names_the_environment_variable():
    from kite_browser.agent.llm.client import map_exception

    err = map_exception(litellm.AuthenticationError("bad key", "openai", "gpt-4o-mini"), "openai/gpt-4o-mini")
    assert isinstance(err, LLMAuthError)
    assert "OPENAI_API_KEY" in err.message


async def test_malformed_reply_reaches_the_parser_as_a_parse_error(scripted_model):
    scripted_model.script([CLICK], errors={1: "malformed"})
    client = LLMClient(scripted_model.config())
    reply = await client.complete(USER)
    with pytest.raises(ParseError, match="clik"):
        parse_reply(reply)
    assert parse_reply(await client.complete(USER)).actions[0].to_json()["index"] == 3


async def test_exhausted_script_fails_clearly(scripted_model):
    scripted_model.script([])
    with pytest.raises(LLMBadRequestError, match="no reply left"):
        await LLMClient(scripted_model.config()).complete(USER)


async def test_model_receives_messages_tools_and_config_params(scripted_model):
    scripted_model.script([CLICK])
    config = scripted_model.config(temperature=0.3, max_output_tokens=77, extra={"seed": 7})
    tools = tool_schemas(["click", "done"])
    await LLMClient(config).complete(USER, tools=tools, tool_choice="required")
    [call] = scripted_model.calls
    assert call.messages == USER
    assert [t["function"]["name"] for t in call.tools] == ["click", "done"]
    assert call.kwargs["temperature"] == 0.3
    assert call.kwargs["max_tokens"] == 77
    assert call.kwargs["tool_choice"] == "required"
    assert call.kwargs["seed"] == 7


async def test_usage_latency_and_unknown_cost(scripted_model):
    scripted_model.script(
        [FakeReply(content="hello", prompt_tokens=120, completion_tokens=9)], latency_s=0.05
    )
    reply = await LLMClient(scripted_model.config()).complete(USER)
    assert isinstance(reply, LLMReply)
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (120, 9)
    assert reply.usage.cost_usd is None  # litellm has no price for the fake: never a made-up number
    assert reply.usage.latency_ms >= 50
    assert reply.finish_reason == "stop"
    assert reply.content == "hello"
    assert reply.model == "kite/scripted"


async def test_cost_comes_from_litellm_when_it_knows_the_price(scripted_model):
    litellm.register_model(
        {
            "kite/priced": {
                "input_cost_per_token": 1e-6,
                "output_cost_per_token": 2e-6,
                "cache_creation_input_token_cost": 0.0,
                "cache_read_input_token_cost": 0.0,
                "litellm_provider": "kite",
                "mode": "chat",
            }
        }
    )
    register_fake(
        "priced",
        lambda messages, tools, kwargs: FakeReply(content="ok", prompt_tokens=1000, completion_tokens=500),
    )
    try:
        reply = await LLMClient(scripted_model.config(model="kite/priced")).complete(USER)
    finally:
        unregister_fake("priced")
    assert reply.usage.cost_usd == pytest.approx(1000 * 1e-6 + 500 * 2e-6)


async def test_several_tool_calls_come_back_in_order(scripted_model):
    scripted_model.script(
        [
            [
                {"name": "type", "arguments": {"index": 1, "text": "kite"}},
                {"name": "pressKey", "arguments": '{"key": "Enter"}'},
            ]
        ]
    )
    reply = await LLMClient(scripted_model.config()).complete(USER)
    assert reply.finish_reason == "tool_calls"
    parsed = parse_reply(reply)
    assert [a.action for a in parsed.actions] == ["type", "pressKey"]
    assert parsed.source == "tool_calls"


def test_local_must_be_resolved_first(scripted_model):
    with pytest.raises(LLMBadRequestError, match=r"agent\.llm\.local"):
        LLMClient(scripted_model.config(model="local"))
