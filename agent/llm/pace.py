"""Time limits that fit a model served on this machine: slow, not broken.

A fixed limit (``llm.timeout_s``) fails the first call on a big page when a small model on a few loaded
cores reads only tens of prompt tokens a second. For a server on a loopback address the limit of one call follows the prompt's
size and the server's speed: ``prompt_tokens / prompt_tps + expected_reply / gen_tps``, with room to spare
(x ``MARGIN``), never below ``llm.timeout_s``. The speeds start at the configured guesses
(``llm.local_prompt_tps``, ``llm.local_gen_tps``: a loaded 2-core machine) and follow what the server reports
(llama.cpp's ``timings``: tokens and milliseconds for the prompt and the reply) from the first replies on;
the slowest recent reading counts, so a burst of load does not make the next limit too tight.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

MARGIN = 2.0
TYPICAL_REPLY_TOKENS = 150
"""Reply length assumed before any is seen (a thought and a few actions)."""
_KEEP = 4
_MIN_TOKENS = 16
"""Readings over fewer tokens than this are too noisy to be a speed (a prompt read almost all from cache)."""


@dataclass
class Pace:
    prompt_tps: float
    """Prompt tokens read per second (the slowest of the recent readings, else the guess)."""
    gen_tps: float
    """Reply tokens written per second (likewise)."""
    _prompt: deque[float] = field(default_factory=lambda: deque(maxlen=_KEEP))
    _gen: deque[float] = field(default_factory=lambda: deque(maxlen=_KEEP))
    _reply: deque[int] = field(default_factory=lambda: deque(maxlen=_KEEP))

    @property
    def measured(self) -> bool:
        return bool(self._prompt or self._gen)

    def speeds(self) -> tuple[float, float]:
        return (min(self._prompt, default=self.prompt_tps), min(self._gen, default=self.gen_tps))

    def expected_s(self, prompt_tokens: int, max_reply: int) -> float:
        """The call's expected seconds: reading the prompt, then writing a typical reply."""
        prompt_tps, gen_tps = self.speeds()
        reply = min(max_reply, max(self._reply, default=TYPICAL_REPLY_TOKENS))
        return prompt_tokens / prompt_tps + reply / gen_tps

    def limit_s(self, prompt_tokens: int, max_reply: int, floor_s: float) -> float:
        """The call's time limit: the expected time with room to spare, never below ``floor_s``."""
        return max(floor_s, MARGIN * self.expected_s(prompt_tokens, max_reply))

    def learn(self, timings: object, completion_tokens: int = 0) -> None:
        """Take a reply's speeds from the server's ``timings`` (llama.cpp: prompt_n, prompt_ms, predicted_n,
        predicted_ms); anything missing or unreadable is left out."""
        if completion_tokens > 0:
            self._reply.append(completion_tokens)
        if not isinstance(timings, dict):
            return
        for n_key, ms_key, into in (
            ("prompt_n", "prompt_ms", self._prompt),
            ("predicted_n", "predicted_ms", self._gen),
        ):
            try:
                n, ms = float(timings[n_key]), float(timings[ms_key])
            except (KeyError, TypeError, ValueError):
                continue
            if n >= _MIN_TOKENS and ms > 0:
                into.append(n / (ms / 1000))
