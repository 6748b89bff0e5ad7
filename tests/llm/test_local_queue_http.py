"""A model server on this machine, shared fairly: calls queue in order, the wait is told, and a call's time
limit starts when its turn comes. Through a real HTTP server that works on one request at a time (like the
bundled llama.cpp server on 2 cores) and the real litellm path."""

from __future__ import annotations

import asyncio
from pathlib import Path

import litellm  # noqa: F401  (imported once here, not inside the first timed attempt)
import pytest

from kite_browser.agent.config import LLMConfig
from kite_browser.agent.llm.client import LiteLLMModel
from kite_browser.agent.llm.errors import LLMError
from kite_browser.agent.llm.local_call import LocalCall
from kite_browser.agent.llm.pace import Pace
from kite_browser.agent.llm.progress import progress_to
from tests.fixtures.openai_server import FakeOpenAIServer, Hold, Reply

USER = [{"role": "user", "content": "click the button"}]


def _model(server: FakeOpenAIServer, home: Path, **overrides: object) -> LiteLLMModel:
    config = LLMConfig.model_validate(
        {
            "model": "openai/fake",
            "api_base": server.base_url,
            "local_server": "on",
            "timeout_s": 16.0,
            "retry_max_s": 60.0,
            "max_attempts": 1,
            "local_prompt_tps": 1e6,  # this test's server is slow by holding, not by reading
            "local_gen_tps": 1e6,
            **overrides,
        }
    )
    model = LiteLLMModel(config, backoff_s=0.01)
    assert model.local is not None
    model.local = LocalCall(config, config.model or "", queue_root=home)
    return model


async def warm_up(server: FakeOpenAIServer) -> None:
    """One quick call first: the first call through litellm in a process pays for setting up its clients."""
    server.push(Reply(content="warm"))
    config = LLMConfig.model_validate(
        {"model": "openai/fake", "api_base": server.base_url, "max_attempts": 1}
    )
    await LiteLLMModel(config).complete(USER)
    server.reset()


@pytest.mark.slow
async def test_two_callers_take_turns_and_the_wait_is_not_their_time(
    openai_server: FakeOpenAIServer, tmp_path: Path
) -> None:
    """Each request takes the server 10 s. Sent together, the second would be answered after 20 s, past its
    16 s limit (the server's own queue); queued by Kite, it waits its turn and gets its full 16 s (6 s to
    spare for a loaded machine's own overhead)."""
    await warm_up(openai_server)
    openai_server.fallback = Hold(10.0, Reply(content="ok"))
    told: list[str] = []

    async def sink(message: str) -> None:
        told.append(message)

    async def call(model: LiteLLMModel) -> str | None:
        with progress_to(sink):
            return (await model.complete(USER)).content

    first, second = _model(openai_server, tmp_path), _model(openai_server, tmp_path)
    replies = await asyncio.gather(call(first), call(second))
    assert replies == ["ok", "ok"]
    started, finished = openai_server.started, openai_server.finished
    assert len(started) == 2 and finished[0] <= started[1]  # one at a time
    assert "waiting for the local model: 1 request ahead" in told
    assert first.local is not None and second.local is not None
    assert max(first.local.waited_s, second.local.waited_s) >= 8.0  # one of them waited for the other
    assert not list((tmp_path / "queue").glob("*/0*")), "every ticket is given back"


@pytest.mark.slow
async def test_without_the_queue_the_second_call_times_out(
    openai_server: FakeOpenAIServer, tmp_path: Path
) -> None:
    """The same two calls with ``local_server: off``: the server's own queue eats the second call's limit
    (what two Kites sharing the bundled model saw)."""
    await warm_up(openai_server)
    openai_server.fallback = Hold(10.0, Reply(content="ok"))
    config = {"local_server": "off"}
    first = LiteLLMModel(
        LLMConfig.model_validate(
            {
                "model": "openai/fake",
                "api_base": openai_server.base_url,
                "timeout_s": 16.0,
                "max_attempts": 1,
                **config,
            }
        )
    )
    second = LiteLLMModel(first.config)
    assert first.local is None
    results = await asyncio.gather(first.complete(USER), second.complete(USER), return_exceptions=True)
    assert any(isinstance(r, Exception) and "llm_timeout" in str(getattr(r, "type", "")) for r in results), (
        results
    )


def test_the_limit_follows_the_prompt_and_the_measured_speed() -> None:
    pace = Pace(prompt_tps=20.0, gen_tps=3.0)
    first = pace.limit_s(2000, 1024, floor_s=60.0)
    assert first == 2.0 * (2000 / 20 + 150 / 3)  # the guesses before any reply: 300 s, not 60
    pace.learn({"prompt_n": 1800, "prompt_ms": 30_000, "predicted_n": 80, "predicted_ms": 10_000}, 80)
    assert pace.speeds() == (60.0, 8.0)
    assert pace.limit_s(2000, 1024, floor_s=60.0) == max(60.0, 2.0 * (2000 / 60 + 80 / 8))  # replies of 80
    pace.learn({"prompt_n": 5, "prompt_ms": 1}, 40)  # a prompt read from the cache says nothing of the speed
    assert pace.speeds() == (60.0, 8.0)
    pace.learn({"prompt_n": 1000, "prompt_ms": 50_000}, 0)  # the machine got busier: the slowest counts
    assert pace.speeds()[0] == 20.0
    assert pace.limit_s(10, 1024, floor_s=60.0) == 60.0  # never below llm.timeout_s


async def test_a_slow_local_call_says_what_to_expect(openai_server: FakeOpenAIServer, tmp_path: Path) -> None:
    openai_server.fallback = Reply(content="ok")
    model = _model(openai_server, tmp_path, local_prompt_tps=0.2, timeout_s=4.0, retry_max_s=30.0)
    told: list[str] = []

    async def sink(message: str) -> None:
        told.append(message)

    with progress_to(sink):
        await model.complete(USER)
    [said] = told
    assert said.startswith("the local model reads ") and "expect ~" in said and "limit" in said
    sent = openai_server.requests[0]
    assert sent["messages"] == USER


async def test_a_call_the_server_is_still_working_on_outlives_its_limit(
    openai_server: FakeOpenAIServer, tmp_path: Path
) -> None:
    """A loaded machine makes the local model slower than any speed measured before: at its limit a call is
    not cut while llama.cpp says a slot is processing (the call holds the server's turn: the work is its own).
    Cut there, it would be sent again and the prompt read anew (two runs at load 18 both failed that way)."""
    await warm_up(openai_server)
    openai_server.slots = "answer"
    # 10 s of work against a 1 s limit: on a loaded machine the event loop can be seconds late to the limit
    # (the warm-up's litellm bookkeeping runs on it), and an answer already in by then was never past it
    openai_server.fallback = Hold(10.0, Reply(content="ok"))
    model = _model(openai_server, tmp_path, timeout_s=1.0, local_stretch=30.0)  # room for a loaded machine
    assert (await model.complete(USER)).content == "ok"
    assert model.local is not None and model.local.stretched_s > 0.0  # it ran past its 1 s limit, not cut
    assert len(openai_server.requests) == 1  # never sent twice


async def test_a_server_too_busy_to_say_so_is_busy(openai_server: FakeOpenAIServer, tmp_path: Path) -> None:
    """llama.cpp answers /slots between two prompt batches: while it reads a long prompt the question waits.
    A call whose question gets no answer in time goes on too (this is what the real server did at load 13:
    the call was cut at 280 s while the server was reading its prompt)."""
    await warm_up(openai_server)
    openai_server.slots = "after_work"
    openai_server.fallback = Hold(10.0, Reply(content="ok"))  # far past the limit (see above)
    model = _model(openai_server, tmp_path, timeout_s=1.0, local_stretch=30.0)
    assert (await model.complete(USER)).content == "ok"
    assert model.local is not None and model.local.stretched_s > 0.0
    assert len(openai_server.requests) == 1


async def test_a_server_that_does_not_say_it_is_busy_ends_the_call_at_its_limit(
    openai_server: FakeOpenAIServer, tmp_path: Path
) -> None:
    """No ``/slots`` (another kind of server): the limit holds as before. (The answer is held far past the
    limit and the moment given to an answer just finished, so a loaded machine's delays cannot bring it in.)"""
    await warm_up(openai_server)
    openai_server.fallback = Hold(60.0, Reply(content="ok"))  # ended by the fixture's stop
    model = _model(openai_server, tmp_path, timeout_s=1.0)
    with pytest.raises(LLMError) as caught:
        await model.complete(USER)
    assert caught.value.type == "llm_timeout"
    assert model.local is not None and model.local.stretched_s == 0.0


async def test_a_busy_server_still_has_a_last_limit(openai_server: FakeOpenAIServer, tmp_path: Path) -> None:
    """Busy for ever is no answer: past ``llm.local_stretch`` x its limit the call ends (here 2 x 1 s)."""
    await warm_up(openai_server)
    openai_server.slots = "answer"
    openai_server.fallback = Hold(60.0, Reply(content="ok"))  # ended by the fixture's stop
    model = _model(openai_server, tmp_path, timeout_s=1.0, local_stretch=2.0)
    with pytest.raises(LLMError) as caught:
        await model.complete(USER)
    assert caught.value.type == "llm_timeout"
    assert model.local is not None and 0.0 < model.local.stretched_s < 30.0
    assert len(openai_server.finished) == 0  # cut while the server was still at it
