"""Solve a MiniWoB++ episode step by step: the solver of the page's task type (``/miniwob/<type>.html``)."""

from __future__ import annotations

import re

from kite_browser.agent.browser.actions import Done
from kite_browser.evals.miniwob import OVER_TEXT
from kite_browser.evals.oracle import miniwob_clicks, miniwob_forms
from kite_browser.evals.oracle.decision import Decision, fail
from kite_browser.evals.oracle.miniwob_base import SOLVERS
from kite_browser.evals.oracle.view import OracleView

_MODULES = (miniwob_clicks, miniwob_forms)  # importing them registers their solvers


def task_type(view: OracleView) -> str | None:
    m = re.search(r"/miniwob/([a-z0-9-]+)\.html", view.url)
    return m.group(1) if m else None


def solve_miniwob(view: OracleView) -> Decision | None:
    kind = task_type(view)
    if kind is None or kind not in SOLVERS:
        return None
    if OVER_TEXT in " ".join(view.text.split()):
        return Done(success=True, answer="episode finished")
    action = SOLVERS[kind](view)
    if action is None:
        return fail(f"cannot solve this {kind} page")
    return action
