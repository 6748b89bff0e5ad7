from kite_browser.agent.cli import entry

entry()
