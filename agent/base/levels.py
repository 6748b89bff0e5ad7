"""How much an action needs the user: ``ConfirmLevel`` (auto, notify, confirm, block), ranked.

A leaf, so that every room names levels the same way: the action specs (their default level), the module
tools, the safety policy, the run events and records, the server's and the TUI's views.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal


class ConfirmLevel(StrEnum):
    AUTO = "auto"
    """Run."""
    NOTIFY = "notify"
    """Run and tell the user."""
    CONFIRM = "confirm"
    """Ask first (denied unless approved when nobody can be asked)."""
    BLOCK = "block"
    """Never run."""

    @property
    def rank(self) -> int:
        return _RANK[self]


_RANK = {ConfirmLevel.AUTO: 0, ConfirmLevel.NOTIFY: 1, ConfirmLevel.CONFIRM: 2, ConfirmLevel.BLOCK: 3}

LevelName = Literal["auto", "notify", "confirm", "block"]
"""A level as written by a caller (``define_action(..., safety="confirm")``, ``@tool(safety="notify")``): the
values of ``ConfirmLevel``, checked against it by a test."""
