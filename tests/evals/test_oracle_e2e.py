"""End to end: the harness runs suite tasks with ``kite/oracle`` through the real loop, Chromium and litellm.

One harness run per module (a few sites tasks and MiniWoB episodes); the report tests reuse its result.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kite_browser.evals.harness import EvalReport, run_eval
from kite_browser.evals.tasks import find_suite, load_suite, parse_suite
from tests.evals.conftest import make_config

# the sites eval and the miniwob eval (module fixtures) run once, on one xdist worker
pytestmark = pytest.mark.xdist_group("oracle_e2e")

SITES_TASKS = [
    "shop-add-cheapest-blue-mug",
    "account-login",
    "frames-cross-origin",
    "dynamic-new-tab",
    "forms-upload",
    "shop-cheapest-mugs-json",
]
MINIWOB = ["click-checkboxes#1", "enter-text#0", "click-tab-2#0", "use-slider#1"]


@pytest.fixture(scope="module")
async def sites_report(
    chromium_path: str | None, kite_home: Path, tmp_path_factory: pytest.TempPathFactory
) -> EvalReport:
    config = make_config(chromium_path, tmp_path_factory.mktemp("runs"), kite_home)
    return await run_eval(load_suite(find_suite("sites")), config, concurrency=2, ids=SITES_TASKS)


@pytest.fixture(scope="module")
async def miniwob_report(
    chromium_path: str | None, kite_home: Path, tmp_path_factory: pytest.TempPathFactory
) -> EvalReport:
    config = make_config(chromium_path, tmp_path_factory.mktemp("runs"), kite_home)
    return await run_eval(load_suite(find_suite("miniwob")), config, concurrency=2, ids=MINIWOB)


async def test_oracle_solves_sites_tasks(sites_report: EvalReport) -> None:
    assert sorted(t.id for t in sites_report.tasks) == sorted(SITES_TASKS)
    failed = {t.id: t.failures or t.message for t in sites_report.tasks if not t.success}
    assert not failed
    assert sites_report.success_rate == 1.0 and sites_report.ci95[1] == 1.0
    assert all(t.steps >= 2 and t.tokens_in > 0 and t.run_dir for t in sites_report.tasks)


async def test_sensitive_step_was_confirmed(sites_report: EvalReport) -> None:
    from kite_browser.agent.batch.checks import confirmations

    upload = next(t for t in sites_report.tasks if t.id == "forms-upload")
    asked = confirmations(upload.run_dir)
    assert [a["action"]["action"] for a in asked] == ["uploadFile"] and asked[0]["decision"]["allowed"]


def test_oracle_solves_miniwob_episodes(miniwob_report: EvalReport) -> None:
    by_id = {t.id: t for t in miniwob_report.tasks}
    assert sorted(by_id) == sorted(MINIWOB)
    for tid, t in by_id.items():
        assert t.success and t.score == 1.0, (tid, t.failures, t.message)
        # the agent stopped at the step that ended the episode: no step after the reward, no `done` call
        records = [
            json.loads(line)
            for line in Path(t.run_dir or "", "steps.jsonl").read_text(encoding="utf-8").splitlines()
        ]
        steps = [r for r in records if r["step"] > 0]
        assert t.stop_reason == "task_ended" and "ended with reward 1" in t.message, (tid, t.stop_reason)
        assert t.steps == len(steps) == steps[-1]["step"], (tid, t.steps, len(steps))
        assert all(a["action"]["action"] != "done" for r in steps for a in r.get("actions") or []), tid
        assert (
            t.task
            and json.loads(Path(t.run_dir or "", "run.json").read_text(encoding="utf-8"))["task"] == t.task
        )


async def test_missing_element_fails_the_oracle(eval_config: Any, tmp_path: Path) -> None:
    suite = parse_suite(
        {
            "name": "broken",
            "tasks": [
                {
                    "id": "ghost",
                    "task": "Press the ghost button.",
                    "start_url": "{sites}/shop/",
                    "check": {"url": "/shop/"},
                    "solution": [{"click": {"name": "Ghost button", "role": "button"}}],
                },
                {
                    "id": "wrong-claim",
                    "task": "Open the cart.",
                    "start_url": "{sites}/shop/",
                    "check": {"url": "/shop/cart"},
                    "solution": [{"done": {"success": True, "answer": "opened"}}],
                },
            ],
        }
    )
    report = await run_eval(suite, eval_config)
    ghost, claim = report.tasks
    assert ghost.success  # the URL check holds, but the oracle said why it could not act
    assert (
        not ghost.claimed_success and "no element matches" in ghost.answer and "Ghost button" in ghost.answer
    )
    assert claim.claimed_success and not claim.success
    assert claim.failures and "url:" in claim.failures[0]
    assert report.success_rate == 0.5
