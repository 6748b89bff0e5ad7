"""switchTab: make another tab the active one (by index or URL substring)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from kite_browser.agent.browser.exec.base import ExecContext, Outcome
from kite_browser.agent.browser.exec.spec import ActionModel, define_action


class SwitchTab(ActionModel):
    """Make another tab the active one, by its index in the tab list or a substring of its URL."""

    action: Literal["switchTab"] = "switchTab"
    index: int | None = Field(None, ge=0, description="Tab index from the summary's tab list.")
    url: str | None = Field(None, min_length=1, description="Substring of the tab's URL.")

    @model_validator(mode="after")
    def _one(self) -> SwitchTab:
        if (self.index is None) == (self.url is None):
            raise ValueError("give exactly one of 'index' or 'url'")
        return self

    @property
    def target_index(self) -> int | None:
        """None: ``index`` is a tab's, not an element's (the loop would judge and remember element [index])."""
        return None


async def switch_tab(ec: ExecContext, action: SwitchTab) -> Outcome:
    """The session raises a typed tab_not_found error (with the open tabs) when nothing matches."""
    page = await ec.session.switch_tab(index=action.index, url=action.url)
    title = await page.title()
    return Outcome("switch", f"switched to tab {page.url}" + (f' "{title}"' if title else ""), page=page)


define_action(SwitchTab, switch_tab, rank=150)
