"""Helpers shared by the site tests."""

from __future__ import annotations

from tests.fixtures.sites import site_state as state

__all__ = ["state"]
