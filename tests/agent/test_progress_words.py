"""What ``kite run`` prints (agent/commands/_progress.py): counts said in the singular when there is one, a
``done`` with success false never marked with a tick."""

from __future__ import annotations

import io

from rich.console import Console

from kite_browser.agent.base.events import ActionFinished
from kite_browser.agent.base.result import RunResult, StopReason
from kite_browser.agent.commands._progress import ProgressPrinter, plural


def printed(*events: ActionFinished, result: RunResult | None = None) -> str:
    out = io.StringIO()
    printer = ProgressPrinter(Console(file=out, width=200))
    for event in events:
        printer(event)
    if result is not None:
        printer.final(result)
    printer.flush()
    return out.getvalue()


def test_one_step_is_one_step() -> None:
    assert plural(1, "step") == "1 step" and plural(2, "step") == "2 steps" and plural(0, "step") == "0 steps"
    text = printed(result=RunResult(success=True, stop_reason=StopReason.DONE, steps=1))
    assert "in 1 step," in text and "1 steps" not in text


def test_a_done_with_success_false_is_not_ticked() -> None:
    failed = ActionFinished(step=2, action='done success=False answer="no such mug"', ok=True)
    fine = ActionFinished(step=2, action='done success=True answer="found"', ok=True)
    assert not failed.went_well and fine.went_well
    assert not ActionFinished(step=1, action="click [3]", ok=False).went_well
    text = printed(failed, fine)  # not a terminal: plain lines
    lines = [x for x in text.splitlines() if "done success" in x]
    assert "✗ done success=False" in text and "✓ done success=True" in text, lines
