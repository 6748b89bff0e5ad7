"""The ``chrome`` module: headless Chrome browsers and tabs as 15 ``chrome_*`` tools (seed 000)."""

from kite_browser.agent.modules.chrome.module import ChromeModule


def create_module() -> ChromeModule:
    return ChromeModule()


__all__ = ["ChromeModule", "create_module"]
