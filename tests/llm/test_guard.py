"""The test guard refuses real model requests; fakes still go through litellm."""

from __future__ import annotations

import litellm
import pytest

from kite_browser.agent.config import LLMConfig
from kite_browser.agent.llm.client import LLMClient
from tests.fixtures.llm import RealModelRequestRefused


async def test_real_model_request_is_refused_even_through_the_client():
    client = LLMClient(LLMConfig(model="openai/gpt-4o-mini", api_key="sk-test", max_attempts=3))
    with pytest.raises(RealModelRequestRefused, match="gpt-4o-mini"):
        await client.complete([{"role": "user", "content": "hi"}])


def test_sync_completion_is_refused_too():
    with pytest.raises(RealModelRequestRefused):
        litellm.completion(model="anthropic/claude-sonnet-4-5", messages=[{"role": "user", "content": "hi"}])


def test_fake_models_still_work_synchronously(scripted_model):
    scripted_model.script(["plain answer"])
    response = litellm.completion(model="kite/scripted", messages=[{"role": "user", "content": "hi"}])
    assert response.choices[0].message.content == "plain answer"


@pytest.mark.allow_model_requests
def test_a_test_marked_allow_model_requests_may_call_a_real_model():
    from tests.fixtures.llm import _allow_real

    assert _allow_real["now"] is True


def test_an_unmarked_test_may_not():
    from tests.fixtures.llm import _allow_real

    assert _allow_real["now"] is False
