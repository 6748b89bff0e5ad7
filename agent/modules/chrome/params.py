"""Parameter models of the 15 ``chrome_*`` tools (seed 000: names, defaults and descriptions).

The tool definitions are generated from these models; camelCase names as the seed gives them. They are the
seed's contract (a browser and tab by id, an element by CSS selector, Puppeteer's ``waitUntil``), not derived
from the action registry as the MCP tools and the ``browser`` module's ``act`` kinds are; which actions each
tool runs, or is judged as, is ``RUNS`` in ``module.py`` (tests/browser/test_tool_faces.py checks it covers
the registry)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from kite_browser.agent.modules.base import Params

BrowserId = Field(min_length=1, description="Browser instance id (from chrome_launch).")
TabId = Field(min_length=1, description="Tab id (from chrome_launch, chrome_new_tab or chrome_list_tabs).")
Selector = Field(min_length=1, description="CSS selector of the element.")


class LaunchParams(Params):
    headless: bool = Field(True, description="Run without a window (default true).")
    args: list[str] = Field(default_factory=list, description="Extra Chromium command-line flags.")


class BrowserParams(Params):
    browserId: str = BrowserId


class NewTabParams(Params):
    browserId: str = BrowserId
    url: str | None = Field(None, min_length=1, description="URL to open in the new tab (optional).")


class TabParams(Params):
    tabId: str = TabId


class NavigateParams(Params):
    tabId: str = TabId
    url: str = Field(min_length=1, description="Target URL (http or https).")
    waitUntil: Literal["load", "domcontentloaded", "networkidle0", "networkidle2"] = Field(
        "load", description="When the navigation counts as done (default load)."
    )
    timeoutMs: int = Field(30000, ge=1, le=300000, description="Timeout in milliseconds (default 30000).")


class ScreenshotParams(Params):
    tabId: str = TabId
    fullPage: bool = Field(False, description="Capture the whole scrollable page (default false).")
    selector: str | None = Field(None, min_length=1, description="Capture only this element (CSS selector).")


class ContentParams(Params):
    tabId: str = TabId
    selector: str | None = Field(None, min_length=1, description="Only this element (CSS selector).")


class ClickParams(Params):
    tabId: str = TabId
    selector: str = Selector
    waitForSelector: bool = Field(True, description="Wait for the element to appear (default true).")
    timeoutMs: int = Field(5000, ge=1, le=300000, description="Wait timeout in milliseconds (default 5000).")


class TypeParams(Params):
    tabId: str = TabId
    selector: str = Selector
    text: str = Field(description="Text to type; it is appended to the current value.")
    delay: int = Field(0, ge=0, le=1000, description="Milliseconds between key presses (default 0).")


class FillParams(Params):
    tabId: str = TabId
    selector: str = Selector
    value: str = Field(description="The new value; it replaces the current one.")


class EvaluateParams(Params):
    tabId: str = TabId
    script: str = Field(
        min_length=1, description="JavaScript: an expression, or a function body that `return`s a value."
    )


class WaitForParams(Params):
    tabId: str = TabId
    selector: str = Selector
    state: Literal["attached", "detached", "visible", "hidden"] = Field(
        "visible", description="The state to wait for (default visible)."
    )
    timeoutMs: int = Field(30000, ge=0, le=300000, description="Timeout in milliseconds (default 30000).")
