"""read: the page's main content as Markdown (read-only; the core is ``agent/browser/reader.py``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from kite_browser.agent.browser.exec.base import ExecContext, Outcome
from kite_browser.agent.browser.exec.spec import ActionModel, define_action
from kite_browser.agent.browser.reader import read_page
from kite_browser.agent.browser.snapshot import Snapshotter


class Read(ActionModel):
    """Read the page's main text as Markdown (links as [text][#index]; long pages in pages). With query: only
    the passages containing its words (find in page)."""

    action: Literal["read"] = "read"
    query: str | None = Field(
        None,
        min_length=1,
        max_length=200,
        description="Words to find; only passages containing them are returned.",
    )
    page: int = Field(1, ge=1, le=1000, description="Which page of a long text to return (1 = the first).")


async def read(ec: ExecContext, action: Read) -> Outcome:
    snap = ec.snapshotter if isinstance(ec.snapshotter, Snapshotter) else None
    res = await read_page(
        ec.page,
        snap,
        query=action.query,
        page_number=action.page,
        budget_tokens=ec.config.snapshot.read_tokens,
    )
    what = f"{res.matches} passages matching {action.query!r}" if action.query else "the page's content"
    if action.query and not res.matches:
        what = f"the page's content (nothing matches {action.query!r} word for word)"
    return Outcome(
        "reader",
        f"read {what} (page {res.page} of {res.pages}, {res.tokens} tokens)",
        data={"text": res.text(), "read": res.model_dump(exclude={"markdown"})},
    )


define_action(Read, read, settle="none", rank=175)
