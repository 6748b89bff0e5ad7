"""Kite's safety room: confirm levels, the policy, confirmers, secrets and domain limits."""

if not __name__.startswith("kite_browser."):
    raise ImportError(
        f"import {__name__!r} as 'kite_browser.{__name__}' (the command line: 'kite' or 'python -m kite_browser.agent'):"
        " under its bare name each of its modules would load a second time, beside the copy the rest of Kite uses"
    )
