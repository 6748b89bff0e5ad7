"""Observation token counts: the default model's count, made without importing litellm, is litellm's own."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import litellm

from kite_browser.agent.browser.tokens import DEFAULT_MODEL, _count_like_litellm, count_tokens

SITES = Path(__file__).resolve().parents[2] / "evals" / "sites"
TEXTS = [
    "Add to cart",
    "<|endoftext|> special tokens <|fim_prefix|> are text",
    "é" * 3000,
    "日本語のテキスト " * 500,
    "a" * 2049,
    " \n\t " * 999,
    "[12] link 'Blue mug $9.50' → https://127.0.0.1:8765/shop/item/12?ref=search&q=blue%20mug\n" * 300,
]


def test_the_default_count_is_litellms_on_the_bundled_pages_and_odd_texts() -> None:
    pages = [path.read_text(encoding="utf-8") for path in sorted(SITES.rglob("*.html"))]
    assert len(pages) >= 10
    for text in [*TEXTS, *pages]:
        # litellm counts in pieces of 1,024 characters: a text across several pieces is the case that matters
        assert _count_like_litellm(text) == litellm.token_counter(model=DEFAULT_MODEL, text=text), text[:80]
    assert count_tokens("") == 0 and count_tokens("Add to cart") == 3


def test_counting_tokens_does_not_import_litellm() -> None:
    probe = (
        "import sys; from kite_browser.agent.browser.tokens import count_tokens;"
        "n = count_tokens('hello world ' * 500); print(n, 'litellm' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [
        str(litellm.token_counter(model=DEFAULT_MODEL, text="hello world " * 500)),
        "False",
    ]
