"""The ``playwright_browser`` module: named Playwright sessions behind one tool (seed 004)."""

from kite_browser.agent.modules.playwright_browser.module import PlaywrightBrowserModule


def create_module() -> PlaywrightBrowserModule:
    return PlaywrightBrowserModule()


__all__ = ["PlaywrightBrowserModule", "create_module"]
