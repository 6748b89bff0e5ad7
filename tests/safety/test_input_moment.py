"""A target that changes at the moment the input lands, in a real Chromium through the planner loop.

``evals/sites/static/test/input-moment.html`` relabels its controls into paying ones on keydown (Enter on a
button, Space on a role=button span), on pointerup (a div with onclick), 7 ms after pointerdown (a link), on
mouseup of a <label> whose control is a hidden submit button, and in the aria-label alone (a span with a click
listener), in six languages. The input guard reads the target at every event of the input and cancels the
rest of it: each is refused as ``target_changed`` and nothing is activated; the honest controls still work.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kite_browser.agent.llm.model import ModelView
from kite_browser.agent.llm.testing import FunctionModel
from kite_browser.agent.run.loop import Agent
from kite_browser.safety.confirm import BatchConfirmer

# (element id, action): each is one step of the fake model, in this order.
ATTACKS = [
    ("kd-enter", {"action": "pressKey", "key": "Enter"}),
    ("kd-space", {"action": "pressKey", "key": " "}),
    ("pu", {"action": "click"}),
    ("pd-timer", {"action": "click"}),
    ("lbl", {"action": "click"}),
    ("aria", {"action": "click"}),
]
HONEST = [
    ("honest", {"action": "click"}),
    ("honest-key", {"action": "pressKey", "key": "Enter"}),
    ("honest-div", {"action": "click"}),
]


def _outcomes(run_dir: str | None) -> list[dict[str, Any]]:
    steps = [json.loads(x) for x in (Path(run_dir or ".") / "steps.jsonl").read_text().splitlines()]
    return [a for s in steps[1:] for a in s["actions"] if a["action"]["action"] != "done"]  # 0: the start URL


async def test_a_target_relabelled_during_the_input_is_cancelled(kite_config, ctx_session, sites):
    todo = list(ATTACKS + HONEST)

    async def model(messages: list[dict[str, Any]], view: ModelView) -> dict[str, Any]:
        if not todo:
            return {"action": "done", "success": True, "answer": "done"}
        element_id, action = todo.pop(0)
        by_id = {e.attrs.get("id"): e for e in view.observation.elements}
        return {**action, "index": by_id[element_id].index}

    config = kite_config(**{"agent.max_steps": 12, "agent.max_failures": 12})
    agent = Agent(config, model=FunctionModel(model), confirmer=BatchConfirmer(), context=ctx_session)
    result = await agent.run("review the list", start_url=sites.url("/test/input-moment.html"))
    log = await ctx_session.page.evaluate("window.log")
    # The link relabels itself 7 ms after pointerdown: on a loaded machine that timer can fire after the click
    # has landed, and the page itself then logs the activation with the label Kite judged ("pd-timer Next"):
    # nothing was relabelled before it, so there was nothing to refuse. Activated under a paying label fails.
    timer_late = "pd-timer Next" in log
    assert log == ["pd-timer Next"] * timer_late + ["honest", "honest-key", "honest-div"], log
    outcomes = _outcomes(result.run_dir)
    assert len(outcomes) == len(ATTACKS) + len(HONEST)
    for (element_id, _), outcome in zip(ATTACKS + HONEST, outcomes, strict=True):
        assert outcome["decision"]["level"] == "auto", (element_id, outcome)  # harmless when Kite looked
        res = outcome["result"]
        if element_id.startswith("honest") or (element_id == "pd-timer" and timer_late):
            assert res["ok"], (element_id, res)
            continue
        assert (res.get("error") or {}).get("error") == "target_changed", (element_id, res)
    # The page's labels after the refused inputs: the relabelling happened, the activation did not.
    now = await ctx_session.page.evaluate("document.getElementById('kd-enter').textContent")
    assert now == "Pay now"
    # Reported as what happened: the model's claim is kept, the run is not a success, each refusal listed.
    assert result.claimed_success is True and result.success is False, result
    assert [d.outcome for d in result.declined] == ["refused"] * (len(ATTACKS) - timer_late), result.declined
