"""The tool modules' settings (``module_settings.*`` and the default ``modules`` list), and ``Section``, the
base of every config section. Part of the config loader (agent/config/), kept apart to keep it small."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from kite_browser.agent.base.jsontypes import JsonObject


class Section(BaseModel):
    """A config section: unknown keys are errors, and each field's docstring is its description."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class ChromeModuleConfig(Section):
    max_browsers: int = Field(8, ge=1)
    """Most browsers chrome_launch keeps open at once (a further launch is refused with a typed error)."""


class BrowserModuleConfig(Section):
    profile: Literal["sandbox", "attach"] = "sandbox"
    """What `browser start` does without a profile: sandbox = an isolated Chromium; attach = the user's Chrome."""
    attach_endpoint: str = "http://127.0.0.1:9222"
    """The running Chrome's DevTools endpoint for profile=attach (start it with --remote-debugging-port=9222)."""


class JavaScriptModuleConfig(Section):
    timeout_ms: int = Field(10000, gt=0)
    """run_javascript's default time limit per call (a call may ask for its own timeout_ms)."""
    max_result_bytes: int = Field(1_000_000, gt=0)
    """Largest JSON return value run_javascript hands back; a larger one answers result_too_large."""
    memory_mb: int = Field(256, ge=32, le=8192)
    """Most memory one run_javascript call may hold (its JavaScript heap, and its page's anonymous memory such as
    ArrayBuffers); a call that goes over it is stopped and answers memory_limit."""
    node_fallback: bool = False
    """When no Chromium can start, run the code in Node.js instead (no canvas). Off by default: Node.js is not a
    sandbox (it is confined by a permission model: no child processes, no files outside a temporary folder,
    no network; each call is judged as executeJS, so it asks first)."""
    node_path: str = "node"
    """The Node.js executable of the fallback."""
    warm_pages_max: int = Field(8, ge=1, le=64)
    """Most fresh sandbox pages kept open ready for the next calls (as many as the recent peak of concurrent calls)."""


class PlaywrightBrowserModuleConfig(Section):
    output_dir: str | None = None
    """Where playwright_browser saves pages and screenshots; None = <system temp dir>/playwright_browser."""


class ModuleSettings(Section):
    call_timeout_s: float = Field(120.0, gt=0)
    """Upper bound on one tool call of any module; a call still running then answers tool_timeout."""
    artifacts_dir: str | None = None
    """Where modules write files they hand back; None = <data dir>/artifacts."""
    chrome: ChromeModuleConfig = Field(default_factory=ChromeModuleConfig)
    """Settings of the chrome module."""
    browser: BrowserModuleConfig = Field(default_factory=BrowserModuleConfig)
    """Settings of the browser module."""
    javascript: JavaScriptModuleConfig = Field(default_factory=JavaScriptModuleConfig)
    """Settings of the javascript module."""
    playwright_browser: PlaywrightBrowserModuleConfig = Field(default_factory=PlaywrightBrowserModuleConfig)
    """Settings of the playwright_browser module."""
    extra: dict[str, JsonObject] = Field(default_factory=dict)
    """Settings of third-party modules, by module name."""


DEFAULT_MODULES = ["chrome", "browser", "playwright_browser", "javascript"]
