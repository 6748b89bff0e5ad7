"""Small readers of a model's reply for ``agent.llm.parsing``: the fenced blocks of its text, and whether the
provider cut it off at the output token limit (``finish_reason: "length"``)."""

from __future__ import annotations

from collections.abc import Iterator

from kite_browser.agent.llm.client import LLMReply

CUT_OFF = (
    "Your reply was cut off at the output token limit (llm.max_output_tokens) before its JSON ended, so none "
    "of it was run. Reply again with less text: one action, a short thought."
)

REASONING_ONLY = (
    "Your reply held only reasoning (<think>...</think>) and no action after it. After your reasoning, "
    "reply with the action:"
)


def was_cut_off(reply: LLMReply | str) -> bool:
    """The provider stopped the reply at the output token limit: its last JSON may be incomplete."""
    return isinstance(reply, LLMReply) and reply.finish_reason == "length"


def fenced_blocks(text: str) -> Iterator[str]:
    """The body of each fenced block (a ``` line, then up to the next ``` or the end), in linear time."""
    pos = 0
    while (start := text.find("```", pos)) >= 0:
        line_end = text.find("\n", start)
        if line_end < 0:
            return  # no line break after this fence, nor after any later one
        end = text.find("```", line_end + 1)
        yield text[line_end + 1 : end if end >= 0 else len(text)]
        if end < 0:
            return
        pos = end + 3
