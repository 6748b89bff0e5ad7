"""Run endpoints (being built)."""

from __future__ import annotations

from fastapi import APIRouter


def router() -> APIRouter:
    return APIRouter(prefix="/api", tags=["runs"])
