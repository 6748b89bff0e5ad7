"""The saved-page corpus is found relative to the checkout, wherever the checkout is."""

from __future__ import annotations

from pathlib import Path

from kite_browser.evals.bench.corpus import CORPUS_RELPATH, corpus_missing_message, find_corpus


def test_finds_shared_pages_in_a_parent_of_the_checkout(tmp_path: Path) -> None:
    corpus = tmp_path / "shared" / "pages"
    corpus.mkdir(parents=True)
    checkout = tmp_path / "wt" / "someone"
    checkout.mkdir(parents=True)
    assert find_corpus(checkout) == corpus


def test_a_clone_without_the_corpus_says_where_it_looked(tmp_path: Path) -> None:
    checkout = tmp_path / "clone"
    checkout.mkdir()
    assert find_corpus(checkout) is None
    message = corpus_missing_message(checkout)
    assert str(checkout) in message and str(CORPUS_RELPATH) in message
