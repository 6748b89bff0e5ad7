"""A model call in an OpenTelemetry span with the GenAI semantic-convention attributes (system, model, input and
output tokens, finish reason); the text sent and received only with ``telemetry.prompts``, redacted. A no-op
span when telemetry is off (agent/base/telemetry.py)."""

from __future__ import annotations

import json
from collections.abc import Callable

from kite_browser.agent.base import telemetry
from kite_browser.agent.llm.chat import ChatMessage, ChatTool
from kite_browser.agent.llm.client import LLMReply
from kite_browser.agent.llm.model import Model, ModelView


async def complete_traced(
    model: Model,
    messages: list[ChatMessage],
    tools: list[ChatTool] | None,
    *,
    view: ModelView | None,
    redact: Callable[[str], str],
) -> LLMReply:
    """``model.complete(...)`` as the span ``chat <model>``; ``redact`` is applied to any text put on it."""
    opening: telemetry.Attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.system": provider_of(model.name),
        "gen_ai.request.model": model.name,
    }
    with telemetry.span(f"chat {model.name}", opening) as span:
        if telemetry.prompts_wanted():
            span.set({"gen_ai.input.messages": redact(json.dumps(_texts(messages), ensure_ascii=False))})
        reply = await model.complete(messages, tools, view=view)
        span.set(
            {
                "gen_ai.response.model": reply.model or None,
                "gen_ai.usage.input_tokens": reply.usage.prompt_tokens,
                "gen_ai.usage.output_tokens": reply.usage.completion_tokens,
                "gen_ai.response.finish_reasons": [reply.finish_reason] if reply.finish_reason else None,
                "kite.llm.cost_usd": reply.usage.cost_usd,
                "kite.llm.attempts": reply.attempts,
                "kite.llm.tool_calls": len(reply.tool_calls),
            }
        )
        if telemetry.prompts_wanted():
            span.set({"gen_ai.output.messages": redact(reply.content or "")})
        return reply


def provider_of(model: str) -> str:
    """The GenAI ``system`` of a litellm model string: its provider prefix (``openai/gpt-4o`` -> ``openai``);
    a bare name is litellm's to route."""
    return model.split("/", 1)[0] if "/" in model else "litellm"


def _texts(messages: list[ChatMessage]) -> list[dict[str, str]]:
    """The messages as role and text (images left out: a span is no place for a screenshot)."""
    out: list[dict[str, str]] = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            text = "\n".join(str(p.get("text", "")) for p in content if p.get("type") == "text")
        else:
            text = str(content or "")
        out.append({"role": str(message.get("role", "")), "content": text})
    return out
