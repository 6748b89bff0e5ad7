"""The ``javascript`` module: ``run_javascript`` in a dedicated headless Chromium (seed 003)."""

from kite_browser.agent.modules.javascript.module import JavaScriptModule


def create_module() -> JavaScriptModule:
    return JavaScriptModule()


__all__ = ["JavaScriptModule", "create_module"]
