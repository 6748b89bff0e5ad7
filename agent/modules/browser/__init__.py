"""The ``browser`` module: one compound tool over a stateful browser (seed 001)."""

from kite_browser.agent.modules.browser.module import BrowserModule


def create_module() -> BrowserModule:
    return BrowserModule()


__all__ = ["BrowserModule", "create_module"]
