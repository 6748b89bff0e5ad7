"""The ``playwright_browser`` tool's parameters and its one result shape (seed 004)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, model_validator

from kite_browser.agent.modules.base import Params

Action = Literal["launch", "navigate", "click", "type", "screenshot", "close", "list"]


class PlaywrightBrowserParams(Params):
    action: Action = Field(description="launch | navigate | click | type | screenshot | close | list")
    browser_id: str = Field(
        "default", min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$", description="Session name."
    )
    url: str | None = Field(None, min_length=1, description="navigate: an http(s) URL.")
    selector: str | None = Field(
        None, min_length=1, description="click/type: a CSS selector, or XPath (starting with / or xpath=)."
    )
    text: str | None = Field(None, description="type: the text (replaces the field's value).")
    wait_condition: Literal["network_idle", "timeout"] = Field(
        "network_idle",
        description="After navigate/click: network_idle (until the network is quiet, at most `timeout`) "
        "or timeout (wait the full `timeout`).",
    )
    timeout: float = Field(30.0, gt=0, le=300, description="Seconds to wait (page loads, elements).")
    content_mode: Literal["abstract", "html"] = Field(
        "abstract", description="How the page is saved: abstract (interactive controls, text) or html."
    )
    headless: bool = Field(True, description="launch: without a window.")

    @model_validator(mode="after")
    def _complete(self) -> PlaywrightBrowserParams:
        if self.action == "navigate" and not self.url:
            raise ValueError("navigate needs url")
        if self.action in ("click", "type") and not self.selector:
            raise ValueError(f"{self.action} needs selector")
        if self.action == "type" and self.text is None:
            raise ValueError("type needs text")
        return self


class PlaywrightBrowserResult(BaseModel):
    success: bool
    stdout: str = ""
    stderr: str = ""
    output_files: list[str] = Field(default_factory=list)
