"""Odd completions and odd errors through a real HTTP server (tests/fixtures/openai_server.py) and the real
litellm/OpenAI SDK path: a 200 with nothing to read, token counts no provider could mean, a 403, and litellm's
messages that carry a whole Python traceback."""

from __future__ import annotations

import litellm  # noqa: F401  (imported once here, not inside the first timed attempt)
import pytest

from kite_browser.agent.config import LLMConfig
from kite_browser.agent.llm.client import LLMClient, Usage
from kite_browser.agent.llm.errors import LLMAuthError, LLMUnavailableError
from kite_browser.agent.llm.parsing import ParseError, parse_reply
from tests.fixtures.openai_server import Body, FakeOpenAIServer, Reply, Status, completion

USER = [{"role": "user", "content": "click the button"}]
OK = Reply(tool_calls=[("click", {"index": 3})])
NO_CHOICES = Body({"id": "x", "object": "chat.completion", "created": 1, "model": "fake", "choices": []})


def fake_client(server: FakeOpenAIServer, **overrides: object) -> LLMClient:
    values: dict[str, object] = {
        "model": "openai/fake",
        "api_base": server.base_url,
        "timeout_s": 5.0,
        "retry_max_s": 30.0,
        **overrides,
    }
    return LLMClient(LLMConfig.model_validate(values), backoff_s=0.01)


async def test_an_empty_choices_list_is_retried(openai_server):
    openai_server.push(NO_CHOICES, OK)
    reply = await fake_client(openai_server).complete(USER)
    assert reply.attempts == 2 and reply.tool_calls[0].name == "click"


async def test_empty_choices_every_time_is_a_typed_unavailable_error(openai_server):
    openai_server.push(NO_CHOICES, NO_CHOICES)
    with pytest.raises(LLMUnavailableError) as info:
        await fake_client(openai_server, max_attempts=2).complete(USER)
    assert len(openai_server.requests) == 2
    assert "'choices' list is empty" in info.value.message
    assert info.value.to_dict()["error"] == "llm_unavailable"


@pytest.mark.parametrize("code", [401, 403])
async def test_a_rejected_key_is_an_auth_error_and_not_retried(openai_server, code):
    openai_server.push(Status(code, message="Incorrect API key provided"), OK)
    with pytest.raises(LLMAuthError) as info:
        await fake_client(openai_server, max_attempts=3).complete(USER)
    assert len(openai_server.requests) == 1
    assert info.value.to_dict()["error"] == "llm_auth_error"
    assert "rejected the credentials" in info.value.message


@pytest.mark.parametrize(
    "usage",
    [
        {"prompt_tokens": -50, "completion_tokens": -7, "total_tokens": -57},
        {"prompt_tokens": 10**30, "completion_tokens": -1, "total_tokens": 10**30},
    ],
)
async def test_negative_or_absurd_token_counts_count_as_unreported(openai_server, usage):
    openai_server.push(Reply(content="hi", usage=usage))
    reply = await fake_client(openai_server, model="openai/gpt-4o-mini").complete(USER)
    assert reply.usage.prompt_tokens == 0 and reply.usage.completion_tokens == 0
    assert reply.usage.cost_usd is None  # never a negative or astronomical price


async def test_real_counts_of_a_known_model_are_kept_and_priced(openai_server):
    openai_server.push(Reply(content="hi", prompt_tokens=1000, completion_tokens=200))
    reply = await fake_client(openai_server, model="openai/gpt-4o-mini").complete(USER)
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (1000, 200)
    assert reply.usage.cost_usd is not None and 0 < reply.usage.cost_usd < 0.01


def test_usage_from_any_model_is_never_negative():
    usage = Usage(prompt_tokens=-5, completion_tokens="7", cost_usd=float("-inf"))  # type: ignore[arg-type]
    assert (usage.prompt_tokens, usage.completion_tokens, usage.cost_usd) == (0, 7, None)
    assert Usage(cost_usd=float("nan")).cost_usd is None


async def test_a_malformed_completion_says_so_without_a_traceback(openai_server):
    bad = Reply(content="hi", usage={"prompt_tokens": 1.5, "completion_tokens": 2, "total_tokens": 3})
    openai_server.push(bad, bad)
    with pytest.raises(LLMUnavailableError) as info:
        await fake_client(openai_server, max_attempts=2).complete(USER)
    message = info.value.message
    assert "malformed chat completion" in message
    assert "Traceback" not in message and 'File "' not in message and "received_args" not in message
    assert "prompt_tokens" in message and "fractional part" in message  # what was wrong, in one line
    assert "\n" not in message


async def test_a_reply_of_only_reasoning_is_kept_and_the_model_told(openai_server):
    """litellm moves ``<think>...</think>`` out of the content: Kite lost it (the record showed an empty reply)
    and told the model its reply was empty."""
    openai_server.push(Reply(content="<think>The mug is item 3, so I click it.</think>"))
    reply = await fake_client(openai_server).complete(USER)
    assert not (reply.content or "").strip()
    assert reply.reasoning is not None and "The mug is item 3" in reply.reasoning
    with pytest.raises(ParseError, match=r"only reasoning \(<think>"):
        parse_reply(reply)


async def test_reasoning_then_an_action_runs_the_action(openai_server):
    openai_server.push(Reply(content='<think>Item 3.</think>\n{"action": "click", "params": {"index": 3}}'))
    reply = await fake_client(openai_server).complete(USER)
    assert [a.action for a in parse_reply(reply).actions] == ["click"]
    assert reply.reasoning is not None and "Item 3." in reply.reasoning


@pytest.mark.parametrize(
    ("extra", "usage_extra", "expected"),
    [
        (  # llama.cpp: timings beside usage
            {"timings": {"cache_n": 900, "prompt_n": 40, "prompt_ms": 1234.5, "predicted_ms": 8000}},
            {},
            {"cached_tokens": 900, "read_s": 1.234, "write_s": 8.0},
        ),
        ({}, {"prompt_tokens_details": {"cached_tokens": 512}}, {"cached_tokens": 512}),  # OpenAI's form
        (  # what is not a count or a time is left out
            {"timings": {"cache_n": -3, "prompt_ms": "slow", "predicted_ms": float("nan")}},
            {},
            {},
        ),
        ({"timings": "none"}, {}, {}),
    ],
)
async def test_what_the_server_says_of_its_cache_and_time_is_kept(
    openai_server, extra, usage_extra, expected
):
    data = completion(Reply(content="hi", prompt_tokens=1000, completion_tokens=20), "fake")
    data["usage"].update(usage_extra)
    openai_server.push(Body({**data, **extra}))
    reply = await fake_client(openai_server).complete(USER)
    said = reply.usage.model_dump(include={"cached_tokens", "read_s", "write_s"})
    assert said == expected and reply.usage.prompt_tokens == 1000
