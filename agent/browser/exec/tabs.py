"""switchTab: make another tab the active one (by index or URL substring)."""

from __future__ import annotations

from agent.browser.actions import SwitchTab
from agent.browser.exec.base import ExecContext, Outcome


async def switch_tab(ec: ExecContext, action: SwitchTab) -> Outcome:
    """The session raises a typed tab_not_found error (with the open tabs) when nothing matches."""
    page = await ec.session.switch_tab(index=action.index, url=action.url)
    title = await page.title()
    return Outcome("switch", f"switched to tab {page.url}" + (f' "{title}"' if title else ""), page=page)
