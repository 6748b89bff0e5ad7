"""Each step's record says where Kite's own time went, phase by phase (``phases_ms``), so the step-overhead
bench can show it; the phases add up to no more than the step's wall time."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from kite_browser.agent.browser.timing import PHASES
from kite_browser.agent.run.loop import Agent
from tests.agent.plan_model import install

PLAN = [
    ("scroll", None, {"direction": "down", "amount": 200}),
    ("click", "Sky Blue Espresso Mug", {}),
    ("done", None, {"success": True, "answer": "opened"}),
]


async def test_step_records_carry_their_phases(make_config, ctx_session, sites):
    install(PLAN)
    result = await Agent(make_config(), context=ctx_session).run(
        "Open the blue mug", start_url=sites.url("/shop/")
    )
    assert result.success, result
    lines = [json.loads(x) for x in (Path(result.run_dir or ".") / "steps.jsonl").read_text().splitlines()]
    steps = [s for s in lines if s["step"] >= 1]
    assert len(steps) == 3
    for prev, step in itertools.pairwise(lines):
        phases = step["phases_ms"]
        assert {"observe", "render", "prompt", "model", "parse", "gate", "act", "record"} <= set(phases), (
            phases
        )
        assert set(phases) <= {*PHASES, "model"}, phases
        assert all(v >= 0 for v in phases.values()), phases
        wall_ms = (step["t"] - prev["t"]) * 1000
        assert sum(phases.values()) <= wall_ms + 1, (phases, wall_ms)  # parts of the step, never more
    scroll_step = steps[0]
    assert scroll_step["actions"][0]["action"]["action"] == "scroll"
    settle = scroll_step["actions"][0]["result"]["data"]["settle_ms"]
    assert abs(scroll_step["phases_ms"]["settle"] - settle) < 0.01  # the executor's settle, out of act
