"""A local model's step: the prompt's stable prefix, and what a llama.cpp server says of its prompt cache.

The fake server below answers as llama.cpp's does: beside ``usage`` it sends ``timings`` whose ``cache_n``
counts the prompt's leading tokens it already held from the previous request (a token here is a character:
the longest common prefix of the two prompts) and whose ``prompt_ms`` and ``predicted_ms`` are the time it
took reading the rest and writing the reply. Kite keeps them in each step's record (``usage``), through the
real litellm path, and the prompt is ordered so that the cache holds the system message and the task."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kite_browser.agent import Agent
from kite_browser.agent.llm.testing import ScriptedModel
from kite_browser.agent.run.prompt import PromptBuilder
from tests.agent.test_constrained_http import by_name, page_elements, target_of, variants
from tests.fixtures.openai_server import Body, FakeOpenAIServer, Reply, Respond, completion

TASK = "Fill in the name Ada, then open the next page"


def prompt_of(body: dict[str, Any]) -> str:
    return "".join(f"<{m['role']}>{m['content']}" for m in body["messages"])


class LlamaLike:
    """Answers the reply form's two steps (type the name and open the next page, then done) with llama.cpp's
    ``timings``: what it took from its cache of the previous prompt, and made-up times of its own."""

    def __init__(self) -> None:
        self.previous = ""
        self.timings: list[dict[str, Any]] = []

    def __call__(self, body: dict[str, Any]) -> Body:
        prompt = prompt_of(body)
        cached = next(
            (i for i, (a, b) in enumerate(zip(prompt, self.previous, strict=False)) if a != b),
            min(len(prompt), len(self.previous)),
        )
        self.previous = prompt
        step = len(self.timings) + 1
        actions, elements = variants(body), page_elements(body)
        if step == 1:
            act = [
                {
                    "action": "type",
                    "target": target_of(actions["type"], by_name(elements, '"Name"')),
                    "text": "Ada",
                },
                {"action": "click", "target": target_of(actions["click"], by_name(elements, '"Next page"'))},
            ]
        else:
            act = [{"action": "done", "success": True, "answer": "on the next page"}]
        reply = Reply(content=json.dumps({"thought": "On it.", "actions": act}), prompt_tokens=len(prompt))
        timings = {
            "cache_n": cached,
            "prompt_n": len(prompt) - cached,
            "prompt_ms": 0.5 * (len(prompt) - cached),
            "predicted_n": 5,
            "predicted_ms": 250.0 * step,
        }
        self.timings.append(timings)
        return Body({**completion(reply, "fake"), "timings": timings})


async def test_each_step_records_what_the_server_read_from_its_cache(
    kite_config: Any, sites: Any, openai_server: FakeOpenAIServer
) -> None:
    server = LlamaLike()
    openai_server.fallback = Respond(server)
    config = kite_config(**{"llm.model": "openai/fake", "llm.api_base": openai_server.base_url})
    result = await Agent(config).run(TASK, start_url=sites.url("/test/reply-form.html"))
    assert not openai_server.errors, openai_server.errors
    assert result.stop_reason == "done" and result.steps == 2, result

    lines = [json.loads(x) for x in (Path(result.run_dir or "") / "steps.jsonl").read_text().splitlines()]
    usages = [line["usage"] for line in lines if "usage" in line]
    assert [u["cached_tokens"] for u in usages] == [t["cache_n"] for t in server.timings]
    assert [u["read_s"] for u in usages] == [round(t["prompt_ms"] / 1000, 3) for t in server.timings]
    assert [u["write_s"] for u in usages] == [0.25, 0.5]
    assert [u["prompt_tokens"] for u in usages] == [len(prompt_of(b)) for b in openai_server.requests]

    # the first step found nothing cached; the second found the system message and the task, unchanged
    first, second = openai_server.requests
    assert usages[0]["cached_tokens"] == 0
    stable = f"<system>{first['messages'][0]['content']}<user>{PromptBuilder(TASK).task_part()}"
    assert TASK in stable and prompt_of(second).startswith(stable)
    assert usages[1]["cached_tokens"] >= len(stable)


async def test_a_server_that_says_nothing_of_its_cache_leaves_no_trace(
    kite_config: Any, sites: Any, openai_server: FakeOpenAIServer
) -> None:
    done = {"thought": "done", "actions": [{"action": "done", "success": True, "answer": "x"}]}
    openai_server.push(Reply(content=json.dumps(done)))
    config = kite_config(**{"llm.model": "openai/fake", "llm.api_base": openai_server.base_url})
    result = await Agent(config).run("look", start_url=sites.url("/test/reply-next.html"))
    assert result.stop_reason == "done", result
    lines = [json.loads(x) for x in (Path(result.run_dir or "") / "steps.jsonl").read_text().splitlines()]
    [usage] = [line["usage"] for line in lines if "usage" in line]
    assert {"cached_tokens", "read_s", "write_s"}.isdisjoint(usage), usage


async def test_the_stable_prefix_is_byte_identical_from_one_step_to_the_next(
    kite_config: Any, sites: Any
) -> None:
    """A scripted run with the local model's settings (JSON replies under a schema): every step's messages
    begin with the same system message and the same task part; what changes (the step, the results, the
    page) comes after it."""
    model = ScriptedModel(
        [
            {"action": "type", "selector": "input[name=name]", "text": "Ada"},
            {"action": "click", "selector": "a"},
            {"action": "done", "success": True, "answer": "ok"},
        ],
        name="openai/fake",
    )
    config = kite_config(**{"llm.model": "openai/fake", "llm.api_base": "http://127.0.0.1:9/v1"})
    agent = Agent(config, model=model)
    assert agent.model.constrained and not agent.model.function_calling
    result = await agent.run(TASK, start_url=sites.url("/test/reply-form.html"))
    assert result.stop_reason == "done" and result.steps == 3, result
    sent = model.messages
    systems = {messages[0]["content"] for messages in sent}
    assert len(systems) == 1
    task_part = agent.prompt.task_part()
    for step, messages in enumerate(sent, 1):
        user = str(messages[1]["content"])
        assert user.startswith(task_part), user[:300]
        assert user.index(f"Step {step} of at most") > len(task_part) - 1
    assert sent[0][1]["content"] != sent[1][1]["content"]  # the rest did change
