"""Token counting for observations, cached: tiktoken's ``o200k_base`` for the default model, counted as litellm's
``token_counter`` counts it; litellm's counter for any other model.

``count_tokens(text)`` gives the same number as ``litellm.token_counter(model="gpt-4o-mini", text=text)``
(``tests/browser/test_tokens.py`` checks it) without importing litellm, which costs 5-10 s of CPU in every
process that counts tokens but calls no model (``kite mcp``, ``kite snapshot``, the tool modules). litellm's
counter, for text: the encoding it picks for gpt-4o models (``o200k_base``), loaded from the copy litellm
bundles (it points ``TIKTOKEN_CACHE_DIR`` there when imported: offline), special tokens counted as text, the text
encoded in pieces of 1,024 characters whose counts are summed (``TIKTOKEN_ENCODE_CHUNK_SIZE_CHARS``); a text over
4,000,000 characters it extrapolates from samples (``TOKEN_COUNTER_MAX_EXACT_CHARS``): that, and either setting
changed in the environment, is left to litellm itself.

The first call loads the tokenizer (once per process); ``warm_up()`` does that ahead of any timing.
"""

from __future__ import annotations

import importlib.util
import os
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import kite_browser  # noqa: F401  (its __init__ sets LITELLM_LOCAL_MODEL_COST_MAP before litellm is imported)

if TYPE_CHECKING:
    import tiktoken

DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_ENCODING = "o200k_base"
"""The encoding litellm's ``token_counter`` uses for every ``gpt-4o`` model name."""
CHUNK_CHARS = 1024
"""litellm encodes a text in pieces of this many characters and sums their counts."""
EXACT_MAX_CHARS = 4_000_000
"""Above this many characters litellm estimates from samples instead of counting."""
_LITELLM_SETTINGS = ("TIKTOKEN_ENCODE_CHUNK_SIZE_CHARS", "TOKEN_COUNTER_MAX_EXACT_CHARS")


@lru_cache(maxsize=1)
def _encoding() -> tiktoken.Encoding:
    """``o200k_base`` from litellm's bundled copy (or ``CUSTOM_TIKTOKEN_CACHE_DIR``), as litellm loads it."""
    import tiktoken

    spec = importlib.util.find_spec("litellm")  # finds the package without running its (slow) __init__
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("litellm is not installed")
    bundled = Path(next(iter(spec.submodule_search_locations))) / "litellm_core_utils" / "tokenizers"
    os.environ["TIKTOKEN_CACHE_DIR"] = os.environ.get("CUSTOM_TIKTOKEN_CACHE_DIR") or str(bundled)
    return tiktoken.get_encoding(DEFAULT_ENCODING)


def _count_like_litellm(text: str) -> int:
    encoding = _encoding()
    return sum(
        len(encoding.encode(text[start : start + CHUNK_CHARS], disallowed_special=()))
        for start in range(0, len(text), CHUNK_CHARS)
    )


@lru_cache(maxsize=512)
def count_tokens(text: str, model: str = DEFAULT_MODEL) -> int:
    """Tokens in ``text`` for ``model`` (litellm.token_counter's count), cached by text."""
    if not text:
        return 0
    if (
        model == DEFAULT_MODEL
        and len(text) <= EXACT_MAX_CHARS
        and not any(map(os.environ.get, _LITELLM_SETTINGS))
    ):
        return _count_like_litellm(text)
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
