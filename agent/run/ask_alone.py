"""The question asked alone: whether this page shows the answer the task asks for, and what it is.

Once only the task's answer looks left (``answer_next``), a constrained model is asked in a short prompt of its
own — the task, this page's text in reading order, one question — before the step's full prompt. A small model
that misses an answer among a step's rules, history and action schema finds it on a page shown alone. Its own
"yes" with an answer becomes the step's ``done`` (the claims policy checks it like any other); its "no", or a
reply that cannot be read, leaves the step to the full prompt. Only the model's own answer binds.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from pydantic import BaseModel

from kite_browser.agent.base.fence import fence
from kite_browser.agent.base.jsontypes import JsonObject
from kite_browser.agent.browser.observation import Observation
from kite_browser.agent.browser.render import render_elements, render_flow
from kite_browser.agent.llm.chat import ChatMessage
from kite_browser.agent.llm.client import LLMReply, Usage
from kite_browser.agent.llm.model import Model, ModelView
from kite_browser.agent.llm.traced import complete_traced
from kite_browser.agent.run.prompt import render, strings

PAGE_TOKENS = 700
"""The page's share of the question (its text in reading order, shortened to fit)."""
MAX_ANSWER = 400
QUESTION_SCHEMA: JsonObject = {
    "type": "object",
    "properties": {
        "shown": {"type": "string", "enum": ["yes", "no"]},
        "answer": {"type": "string", "maxLength": MAX_ANSWER},
    },
    "required": ["shown", "answer"],
    "additionalProperties": False,
}
"""The reply the question is constrained to: "yes" or "no", then the answer as the page shows it."""
_INDEX = re.compile(r"^\*?\[\d+\]\s*", re.MULTILINE)


class AskedRecord(BaseModel):
    """What the step record keeps of the question: what was sent (redacted), what came back, its cost."""

    part: str
    messages: list[dict[str, str]]
    """The system and user message, as sent."""
    content: str | None
    usage: Usage
    shown: bool


@dataclass(frozen=True)
class Asked:
    """The model's answer to the question asked alone: the step record's part of it, the answer it wrote, and
    the reply it came in."""

    record: AskedRecord
    answer: str
    reply: LLMReply

    def as_done(self) -> LLMReply | None:
        """The step's reply when the model said "yes" with an answer: its ``done``, with the question's usage."""
        if not (self.record.shown and self.answer.strip()):
            return None
        thought = f'Asked alone whether this page shows "{self.record.part}": yes.'
        act = {"action": "done", "success": True, "answer": self.answer.strip()}
        content = json.dumps({"thought": thought, "actions": [act]}, ensure_ascii=False)
        return self.reply.model_copy(update={"content": content, "tool_calls": []})


def page_alone(obs: Observation) -> str:
    """The page as the question shows it: its address and title, then its text in reading order (element
    lines without their indexes: nothing is to be acted on)."""
    body = render_flow(obs, budget_tokens=PAGE_TOKENS) if obs.flow else render_elements(obs.elements)
    return f"URL: {obs.url}\nTitle: {obs.summary.title}\n{_INDEX.sub('', body)}"


def question_messages(
    task: str, part: str, obs: Observation, language: str, redact: Callable[[str], str]
) -> list[ChatMessage]:
    """The question's two messages, redacted like every prompt (a page may echo a secret); the page in the
    fence it cannot close, as in every prompt."""
    t = strings(language)
    user = render("ask_alone.j2", t=t, task=task, part=part, page=fence(page_alone(obs)))
    return [
        ChatMessage(role="system", content=redact(t["ask_role"])),
        ChatMessage(role="user", content=redact(user)),
    ]


async def ask_alone(
    llm: Model, task: str, part: str, obs: Observation, language: str, redact: Callable[[str], str]
) -> Asked:
    """Ask ``llm`` alone whether ``obs`` shows what ``part`` of ``task`` asks for (a model error propagates,
    as the step's own call's would)."""
    messages = question_messages(task, part, obs, language, redact)
    view = ModelView(task=task, observation=obs, reply_schema=QUESTION_SCHEMA)
    reply = await complete_traced(llm, messages, None, view=view, redact=redact)
    shown, answer = _read(reply.content)
    record = AskedRecord(
        part=part,
        messages=[{"role": m["role"], "content": str(m.get("content"))} for m in messages],
        content=redact(reply.content or ""),
        usage=reply.usage,
        shown=shown,
    )
    return Asked(record=record, answer=answer, reply=reply)


def _read(content: str | None) -> tuple[bool, str]:
    """(said yes, the answer) from the reply; anything else than the schema's object is a "no"."""
    try:
        data = json.loads(content or "")
    except json.JSONDecodeError:
        return False, ""
    if not isinstance(data, dict):
        return False, ""
    answer = data.get("answer")
    return data.get("shown") == "yes" and isinstance(answer, str), answer if isinstance(answer, str) else ""
