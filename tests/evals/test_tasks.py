"""Task and suite models: validation errors name the task and the field; bundled suites are complete."""

from __future__ import annotations

from pathlib import Path

import pytest

from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.browser.actions import ACTION_NAMES
from kite_browser.evals.miniwob import available_tasks
from kite_browser.evals.tasks import find_suite, load_suite, parse_suite


def _error(data: dict) -> str:
    with pytest.raises(UsageError) as info:
        parse_suite(data, "suite.yaml")
    return info.value.message


def test_error_names_task_and_field() -> None:
    msg = _error({"tasks": [{"id": "ok", "task": "x"}, {"id": "bad-one", "task": "y", "max_steps": 0}]})
    assert "task #2 (bad-one)" in msg and "'max_steps'" in msg


def test_error_in_a_check_names_the_nested_field() -> None:
    msg = _error({"tasks": [{"id": "c", "task": "x", "check": {"url": "("}}]})
    assert "task #1 (c)" in msg and "check" in msg and "invalid regular expression" in msg


def test_unknown_field_and_unknown_solution_action() -> None:
    assert "'colour'" in _error({"tasks": [{"id": "a", "task": "x", "colour": "red"}]})
    msg = _error({"tasks": [{"id": "a", "task": "x", "solution": [{"clik": {"name": "Go"}}]}]})
    assert "solution" in msg and "unknown action 'clik'" in msg
    msg = _error({"tasks": [{"id": "a", "task": "x", "solution": [{"click": "Go"}]}]})
    assert "the parameters of 'click' must be a mapping" in msg  # the plan's words, not the step type's


def test_duplicate_ids_and_empty_checks_are_refused() -> None:
    assert "id already used by task #1" in _error(
        {"tasks": [{"id": "a", "task": "x"}, {"id": "a", "task": "y"}]}
    )
    assert "at least one of" in _error({"tasks": [{"id": "a", "task": "x", "check": {}}]})


def test_defaults_apply_and_placeholders_resolve() -> None:
    suite = parse_suite(
        {
            "defaults": {"max_steps": 7},
            "tasks": [
                {
                    "id": "a",
                    "task": "Go",
                    "start_url": "{sites}/shop/",
                    "solution": [{"navigate": {"url": "{cross}/x"}}],
                }
            ],
        }
    )
    task = suite.tasks[0].resolve({"sites": "http://127.0.0.1:1", "cross": "http://127.0.0.1:2"})
    assert task.max_steps == 7
    assert task.start_url == "http://127.0.0.1:1/shop/"
    assert task.solution == [{"navigate": {"url": "http://127.0.0.1:2/x"}}]


def test_jsonl_task_file(tmp_path: Path) -> None:
    path = tmp_path / "tasks.jsonl"
    path.write_text(
        '{"id": "one", "task": "a"}\n\n{"id": "two", "task": "b", "tags": ["x"]}\n', encoding="utf-8"
    )
    suite = load_suite(path)
    assert [t.id for t in suite.tasks] == ["one", "two"] and suite.name == "tasks"
    path.write_text('{"id": "one", "task": "a"}\n{"id": "two", "task": \n', encoding="utf-8")
    with pytest.raises(UsageError, match="line 2"):
        load_suite(path)


def test_select_unknown_id() -> None:
    suite = parse_suite({"tasks": [{"id": "a", "task": "x"}]})
    with pytest.raises(UsageError, match="nope"):
        suite.select(["nope"])


def test_bundled_sites_suite_covers_every_action() -> None:
    suite = load_suite(find_suite("sites"))
    assert len(suite.tasks) >= 30
    used = {next(iter(s)) if isinstance(s, dict) else s for t in suite.tasks for s in t.solution} | {"done"}
    # askHuman is a person's: a suite run has nobody to hand the browser to (tests/agent/test_handover.py)
    assert used == set(ACTION_NAMES) - {"askHuman"}
    assert all(t.check is not None for t in suite.tasks)
    tags = {tag for t in suite.tasks for tag in t.tags}
    assert {
        "upload",
        "drag",
        "iframe",
        "cross-origin",
        "shadow-dom",
        "tabs",
        "dialogs",
        "zh",
        "sensitive",
    } <= tags


def test_bundled_miniwob_suite() -> None:
    suite = load_suite(find_suite("miniwob"))
    assert suite.miniwob is not None and len(suite.miniwob.tasks) >= 40
    assert set(suite.miniwob.tasks) <= set(available_tasks())
    assert suite.miniwob.seeds == list(range(10))


def test_tasks_run_in_the_order_given() -> None:
    """``--tasks b,a`` runs b first: the suite's selection and MiniWoB's episodes follow the ids' order."""
    from kite_browser.evals.miniwob import expand

    sites = load_suite(find_suite("sites"))
    ids = [sites.tasks[3].id, sites.tasks[0].id, sites.tasks[2].id]
    assert [t.id for t in sites.select(ids)] == ids
    spec = load_suite(find_suite("miniwob")).miniwob
    assert spec is not None
    spec.seeds = [0, 1]
    episodes = [e.id for e in expand(spec, ["enter-text#1", "click-button", "enter-text#0"])]
    assert episodes == ["enter-text#1", "click-button#0", "click-button#1", "enter-text#0"]


async def test_max_steps_beats_the_suite_and_its_tasks(tmp_path: Path) -> None:
    """``kite eval --max-steps N`` applies to every task, over the suite's defaults and MiniWoB's own limit."""
    from kite_browser.agent.config import load_config
    from kite_browser.evals.harness import _Servers, suite_jobs

    config = load_config(None, {"llm.model": "kite/scripted", "run.runs_dir": str(tmp_path)}, env={})
    mine = parse_suite(
        {
            "defaults": {"max_steps": 25},
            "tasks": [{"id": "a", "task": "A"}, {"id": "b", "task": "B", "max_steps": 4}],
        },
        str(tmp_path / "mine.yaml"),
    )
    servers = _Servers()
    try:
        assert [j.config.agent.max_steps for j in await suite_jobs(mine, config, servers)] == [25, 4]
        assert [j.config.agent.max_steps for j in await suite_jobs(mine, config, servers, max_steps=2)] == [
            2,
            2,
        ]
        mw = load_suite(find_suite("miniwob"))
        assert mw.miniwob is not None and mw.miniwob.max_steps == 15
        jobs = await suite_jobs(mw, config, servers, ids=["click-button#0"], max_steps=20)
        assert [j.config.agent.max_steps for j in jobs] == [20]
        jobs = await suite_jobs(mw, config, servers, ids=["click-button#0"])
        assert [j.config.agent.max_steps for j in jobs] == [15]
    finally:
        servers.stop()


async def test_two_tasks_may_share_their_text_and_each_oracle_has_its_own_plan() -> None:
    from kite_browser.agent.config import load_config
    from kite_browser.evals.harness import _Servers, suite_jobs
    from kite_browser.evals.oracle import OracleModel

    suite = parse_suite(
        {
            "tasks": [
                {"id": "a", "task": "Open the cart", "solution": [{"click": {"name": "Cart"}}]},
                {"id": "b", "task": "Open the cart", "solution": [{"navigate": {"url": "/shop/cart"}}]},
            ]
        },
        "suite.yaml",
    )
    servers = _Servers()
    try:
        jobs = await suite_jobs(suite, load_config(overrides={"llm.model": "kite/oracle"}, env={}), servers)
        plans = [j.model.plan for j in jobs if isinstance(j.model, OracleModel)]
        assert plans == [t.solution for t in suite.tasks]
        other = await suite_jobs(
            suite, load_config(overrides={"llm.model": "kite/scripted"}, env={}), servers
        )
        assert [j.model for j in other] == [None, None]
    finally:
        servers.stop()
