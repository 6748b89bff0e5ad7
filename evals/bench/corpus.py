"""Finding the saved-page corpus (``shared/pages``) relative to a Kite checkout.

The corpus is not part of the repository: it sits in a ``shared/pages`` folder next to (or above) the
checkout (``../shared/pages``, or further up for a worktree). A clone elsewhere has none.
"""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
CORPUS_RELPATH = Path("shared") / "pages"
OFFLINE = "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"
"""Chromium flag for saved pages: their third-party hosts fail at once instead of stalling the load."""


def pages_in(directory: Path) -> list[str]:
    """Relative paths of the pages in a corpus folder."""
    found = [f"{d.name}/index.html" for d in sorted(directory.iterdir()) if (d / "index.html").is_file()]
    found += [f.name for f in sorted(directory.glob("*.html"))]
    return found


def find_corpus(start: Path = REPO_ROOT) -> Path | None:
    """The first ``shared/pages`` folder found in ``start`` or one of its parents, or None."""
    for folder in (start, *start.parents):
        candidate = folder / CORPUS_RELPATH
        if candidate.is_dir():
            return candidate
    return None


def corpus_missing_message(start: Path = REPO_ROOT) -> str:
    """One sentence saying where the corpus was looked for, for a skip reason or a CLI error."""
    return (
        f"the saved-page corpus was not found: no {CORPUS_RELPATH}/ folder in {start} or any folder above it "
        "(put the corpus there, e.g. next to the checkout, to run this)"
    )
