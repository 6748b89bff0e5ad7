"""``Any`` only goes down: the lines of each room that say ``Any``, held under a ceiling per room.

A line counts when ``Any`` stands in it as a word (what ``git grep -nw Any -- '*.py' ':!tests'`` counts) in
the product's packages (agent/, safety/, evals/); the rooms are those of tests/test_rooms.py. A room over its
ceiling fails: give the value a real type instead (a pydantic model or a TypedDict at a boundary, ``object``
for a value only passed along, ``JsonValue``/``JsonObject`` of agent/base/jsontypes.py for JSON, a Protocol for a
duck-typed argument, ``cast`` only where a library returns untyped data). A room cleaned below its ceiling
gets its lower number in ``CEILINGS`` in the same commit, so the table can only go down.

Modules that say no ``Any`` at all are held there by mypy (``disallow_any_explicit`` in pyproject.toml's
``[[tool.mypy.overrides]]``). ``make lint`` runs this file.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from tests.test_imports import PACKAGES, ROOT, _module
from tests.test_rooms import ROOMS, room_of

CEILINGS: dict[str, int] = {
    # room: the most lines saying ``Any`` it may hold (tests/test_rooms.py's rooms)
    "leaves": 2,
    "protocols": 0,
    "browser": 39,
    "llm": 43,
    "safety": 2,
    "loop": 2,
    "policies": 2,
    "batch": 2,
    "workflow": 7,
    "modules": 29,
    "server": 11,
    "mcp": 2,
    "tui": 0,
    "commands": 11,
    "evals": 118,
}

_ANY = re.compile(r"\bAny\b", re.ASCII)


def any_lines(path: Path) -> int:
    """How many lines of ``path`` say ``Any`` as a word."""
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if _ANY.search(line))


def counts() -> Counter[str]:
    """Lines saying ``Any`` per room, over every Python file of the product's packages."""
    per_room: Counter[str] = Counter()
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            per_room[room_of(_module(path))] += any_lines(path)
    return per_room


def test_no_room_says_any_more_often_than_its_ceiling() -> None:
    now = counts()
    over = {room: (now[room], CEILINGS.get(room, 0)) for room in now if now[room] > CEILINGS.get(room, 0)}
    assert not over, (
        "rooms saying `Any` on more lines than their ceiling (type the values instead):\n"
        + "\n".join(f"  {room}: {n} lines, ceiling {ceiling}" for room, (n, ceiling) in sorted(over.items()))
    )


def test_the_table_names_every_room() -> None:
    assert set(CEILINGS) == set(ROOMS)


def test_a_line_counts_when_any_stands_as_a_word(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from typing import Any\nx: dict[str, Any] = {}\nAnything = 1\nAnyOf = 2\n# ANY\nmany = 3\ny: Any\n",
        encoding="utf-8",
    )
    assert any_lines(sample) == 3
