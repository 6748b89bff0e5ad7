"""The test guard refuses real model requests (in the test's process and in the processes it starts); fakes
and servers on this machine still answer."""

from __future__ import annotations

import os
import subprocess
import sys

import litellm
import pytest

from kite_browser.agent.config import LLMConfig
from kite_browser.agent.llm.client import LLMClient
from kite_browser.agent.llm.model_names import REFUSE_MODEL_REQUESTS
from tests.fixtures.llm import RealModelRequestRefused
from tests.fixtures.openai_server import Reply


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
    assert os.environ[REFUSE_MODEL_REQUESTS] == "0"


def test_an_unmarked_test_may_not():
    assert os.environ[REFUSE_MODEL_REQUESTS] == "1"


PROBE = """
import asyncio
from kite_browser.agent.config import LLMConfig
from kite_browser.agent.llm.client import LLMClient
from kite_browser.agent.llm.model_names import ModelRequestRefused
client = LLMClient(LLMConfig(model="openai/gpt-4o-mini", api_key="sk-test", max_attempts=3))
try:
    asyncio.run(client.complete([{"role": "user", "content": "hi"}]))
except ModelRequestRefused as exc:
    print("REFUSED", exc)
"""


def test_a_process_the_test_starts_refuses_a_real_model_too():
    """``kite`` processes a test starts inherit the refusal: the model client refuses before any request."""
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "REFUSED real model request refused" in result.stdout and "gpt-4o-mini" in result.stdout


async def test_a_server_on_this_machine_is_not_refused(openai_server):
    """The bundled local model and a test's own OpenAI-compatible server are on 127.0.0.1: they answer."""
    openai_server.push(Reply(content="from the local server"))
    client = LLMClient(LLMConfig(model="openai/fake", api_base=openai_server.base_url, max_attempts=1))
    reply = await client.complete([{"role": "user", "content": "hi"}])
    assert reply.content == "from the local server"
