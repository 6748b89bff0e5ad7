"""A question's answer in a workflow: where the recorded run read it (``source_of``: the passage of the page
text the model was shown that the answer quotes, and the words around it there) and reading it again on the
replayed page (``read_again``).

The page text is compared as lines with the element indexes taken out (``[12]``, ``[#12]``: they differ
from one page load to the next). The passage is found again by the words around it and its shape (each run
of digits may be other digits: a price or a count that changed), else verbatim anywhere on the page; what
is not found is ``None``, never a guess.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from difflib import SequenceMatcher

from kite_browser.agent.workflow.model import Answer

CONTEXT_CHARS = 24
"""Characters of the line kept on each side of the passage."""
MIN_PASSAGE = 4
"""Characters a passage has at least (with a letter or a digit), unless it is the whole answer ("7")."""
_INDEX = re.compile(r"\[#?\d+\]\s?")
_TRIM = " \t\"'`“”‘’«»()[]{}<>,;:"


def page_lines(texts: Iterable[str]) -> list[str]:
    """The lines of ``texts`` without element indexes, spacing collapsed, empty ones left out."""
    out = []
    for text in texts:
        for line in text.splitlines():
            line = " ".join(_INDEX.sub("", line).split())
            if line:
                out.append(line)
    return out


def _context(line: str, start: int, end: int) -> tuple[str, str]:
    before = line[max(0, start - CONTEXT_CHARS) : start]
    if start > CONTEXT_CHARS and " " in before:  # cut at a word's start
        before = before[before.index(" ") + 1 :]
    after = line[end : end + CONTEXT_CHARS]
    if end + CONTEXT_CHARS < len(line) and " " in after:
        after = after[: after.rindex(" ")]
    return before, after


def _whole_words(answer: str, b: int, e: int) -> tuple[int, int]:
    """The span ``[b, e)`` of ``answer`` shrunk to whole words and trimmed of spaces and quotes."""
    if 0 < b < e and answer[b - 1].isalnum() and answer[b].isalnum():
        while b < e and answer[b].isalnum():
            b += 1
    if b < e < len(answer) and answer[e].isalnum() and answer[e - 1].isalnum():
        while e > b and answer[e - 1].isalnum():
            e -= 1
    while b < e and answer[b] in _TRIM:
        b += 1
    while e > b and answer[e - 1] in _TRIM:
        e -= 1
    return b, e


def _passage(line: str, answer: str) -> tuple[str, int] | None:
    """The longest run of whole words of ``answer`` on ``line``: (it, where it starts in the line)."""
    m = SequenceMatcher(None, line, answer, autojunk=False).find_longest_match(0, len(line), 0, len(answer))
    b, e = _whole_words(answer, m.b, m.b + m.size)
    passage = answer[b:e]
    whole = passage == answer.strip(_TRIM)
    if (len(passage) < MIN_PASSAGE and not whole) or not any(c.isalnum() for c in passage):
        return None
    return passage, m.a + (b - m.b)


def source_of(answer: str, texts: Iterable[str], *, task: str = "") -> Answer:
    """Where ``answer`` was read: the longest part of it found on a line of ``texts`` (the last such line
    when several hold it as long), with the text around it there. A line that holds the task's own words
    is not where an answer was read."""
    best: tuple[str, str, int] | None = None  # passage, line, start in line
    asked = " ".join(task.split())
    for line in page_lines(texts):
        if asked and asked in line:
            continue
        found = _passage(line, answer)
        if found is not None and (best is None or len(found[0]) >= len(best[0])):
            best = (found[0], line, found[1])
    if best is None:
        return Answer(text=answer)
    passage, line, start = best
    before, after = _context(line, start, start + len(passage))
    return Answer(text=answer, passage=passage, before=before, after=after)


def _shape(passage: str) -> str:
    """A pattern for the passage where each run of digits may be other digits."""
    return "".join(
        r"\d+" if part.isdigit() else re.escape(part) for part in re.split(r"(\d+)", passage) if part
    )


def read_again(answer: Answer, texts: Iterable[str]) -> str | None:
    """The answer with its passage read from ``texts`` (the replayed page); None when it is not there."""
    if not answer.passage:
        return None
    shape = f"({_shape(answer.passage)})"
    before, after = re.escape(answer.before), re.escape(answer.after)
    patterns = [before + shape + after]
    if answer.before:
        patterns.append(before + shape)
    if answer.after:
        patterns.append(shape + after)
    patterns.append(rf"(?<!\w)({re.escape(answer.passage)})(?!\w)")
    lines = page_lines(texts)
    for pattern in patterns:
        for line in reversed(lines):
            m = re.search(pattern, line)
            if m:
                head, _, tail = answer.text.partition(answer.passage)
                return head + m.group(1) + tail
    return None
