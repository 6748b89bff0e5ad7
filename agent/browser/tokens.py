"""Token counting for observations: litellm's counter for a default model, cached.

The first call loads the tokenizer (slow, once per process); ``warm_up()`` does that ahead of any timing.
"""

from __future__ import annotations

from functools import lru_cache

import kite_browser.agent  # noqa: F401  (sets LITELLM_LOCAL_MODEL_COST_MAP before litellm is imported)

DEFAULT_MODEL = "gpt-4o-mini"


@lru_cache(maxsize=512)
def count_tokens(text: str, model: str = DEFAULT_MODEL) -> int:
    """Tokens in ``text`` for ``model`` (litellm.token_counter), cached by text."""
    if not text:
        return 0
    import litellm

    return int(litellm.token_counter(model=model, text=text))


def warm_up() -> None:
    """Load the tokenizer now so that the first real count is fast."""
    count_tokens("warm up", DEFAULT_MODEL)


def estimate_tokens(model: str, text: str) -> int:
    """Tokens of ``text`` for ``model`` (litellm's counter, cached); a rough count if litellm cannot tell."""
    try:
        return count_tokens(text, model)
    except Exception:
        return len(text) // 3 + 1
