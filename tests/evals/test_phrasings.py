"""Suites that resist tuning (issue 46): every multi-step task of the bundled task suites in three phrasings,
``Suite.phrased`` to run them (``kite eval --phrasing``), the worst phrasing per task in the report; the two
WebArena-style apps' suites (mail, events) with 15+ state-checked multi-page tasks each."""

from __future__ import annotations

import re
from typing import Any

import pytest

from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.batch.results import TaskResult
from kite_browser.agent.cli import main
from kite_browser.evals.harness import EvalReport, summarize
from kite_browser.evals.report import markdown, phrasing_rows, phrasing_summary
from kite_browser.evals.tasks import PHRASINGS, base_id, find_suite, is_multi_step, load_suite, parse_suite

SUITES = ("sites", "mail", "events")


@pytest.mark.parametrize("name", SUITES)
def test_every_multi_step_task_has_each_phrasing(name: str) -> None:
    suite = load_suite(find_suite(name))
    multi = [t for t in suite.tasks if is_multi_step(t)]
    assert multi
    for task in multi:
        words = suite.phrasings.get(task.id)
        assert words is not None, f"{name}/{task.id} has no phrasings"
        said = [getattr(words, k) for k in PHRASINGS]
        assert len({" ".join(s.split()).casefold() for s in [task.task, *said]}) == 4, task.id
        assert re.search(r"^\s*1\.", words.list) and re.search(r"^\s*2\.", words.list, re.M), task.id
        assert len(words.terse) < len(words.chatty), task.id


@pytest.mark.parametrize("name", ["mail", "events"])
def test_the_apps_suites_have_15_multi_page_tasks_checked_on_the_server_state(name: str) -> None:
    suite = load_suite(find_suite(name))
    assert len(suite.tasks) >= 15
    for task in suite.tasks:
        assert task.check is not None and task.check.state, f"{task.id}: no state check"
        assert is_multi_step(task), f"{task.id}: one action"
        assert task.start_url == f"{{sites}}/{name}/"


def _suite() -> Any:
    return parse_suite(
        {
            "name": "p",
            "tasks": [
                {
                    "id": "two",
                    "task": "Add the mug, then open the cart.",
                    "check": {"url": "cart"},
                    "solution": [{"click": {"name": "Add"}}, {"click": {"name": "Cart"}}],
                    "phrasings": {
                        "terse": "Mug, cart.",
                        "chatty": "Hi! Mug please, then cart.",
                        "list": "1. Mug\n2. Cart",
                    },
                },
                {
                    "id": "one",
                    "task": "Open the cart.",
                    "check": {"url": "cart"},
                    "solution": [{"click": {"name": "Cart"}}],
                },
            ],
        }
    )


def test_phrased_says_the_tasks_in_other_words() -> None:
    suite = _suite()
    assert suite.phrased(None).tasks == suite.tasks
    terse = suite.phrased("terse")
    assert [(t.id, t.task) for t in terse.tasks] == [("two:terse", "Mug, cart."), ("one", "Open the cart.")]
    every = suite.phrased("all")
    assert [t.id for t in every.tasks] == ["two:terse", "two:chatty", "two:list", "one"]
    assert all(t.check == suite.tasks[0].check for t in every.tasks[:3])
    assert [t.id for t in suite.phrased("list", ["one", "two"]).tasks] == ["one", "two:list"]
    assert base_id("two:chatty") == ("two", "chatty") and base_id("a:b") == ("a:b", None)
    with pytest.raises(UsageError, match="--phrasing"):
        suite.phrased("shouty")
    with pytest.raises(UsageError, match="unknown task id"):
        suite.phrased("all", ["nope"])


def test_phrasings_of_an_unknown_task_or_with_a_phrasing_missing_are_refused() -> None:
    with pytest.raises(UsageError, match="phrasings for unknown task id"):
        parse_suite(
            {"name": "p", "tasks": [], "phrasings": {"ghost": {"terse": "a", "chatty": "b", "list": "c"}}}
        )
    with pytest.raises(UsageError, match="list"):
        parse_suite(
            {"name": "p", "tasks": [{"id": "a", "task": "x", "phrasings": {"terse": "a", "chatty": "b"}}]}
        )


def _result(tid: str, ok: bool, steps: int) -> TaskResult:
    return TaskResult(
        id=tid, success=ok, claimed_success=ok, score=float(ok), steps=steps, stop_reason="done"
    )


def test_the_report_names_the_worst_phrasing_of_each_task() -> None:
    report = summarize(
        EvalReport(
            suite="p",
            model="m",
            started_at="t",
            tasks=[
                _result("a:terse", True, 3),
                _result("a:chatty", False, 9),
                _result("a:list", True, 4),
                _result("b:terse", True, 3),
                _result("b:chatty", True, 5),
                _result("b:list", True, 4),
                _result("c", False, 1),
                _result("d:terse", True, 2),
                _result("d:chatty", True, 2),
                _result("d:list", True, 2),
            ],
        )
    )
    rows = {r["task"]: r for r in phrasing_rows(report)}
    assert set(rows) == {"a", "b", "d"}
    assert (rows["d"]["worst"], rows["d"]["worst_ok"]) == (None, True)
    assert (rows["a"]["worst"], rows["a"]["worst_ok"]) == ("chatty", False)
    assert (rows["b"]["worst"], rows["b"]["worst_ok"]) == ("chatty", True)  # all pass: the most steps
    assert (
        phrasing_summary(report) == "worst of the phrasings: 2/3 tasks pass (terse 3/3, chatty 2/3, list 3/3)"
    )
    md = markdown(report)
    assert (
        "## Phrasings" in md and "| a | 1/1 (3.0 steps) | 0/1 (9.0 steps) | 1/1 (4.0 steps) | chatty |" in md
    )
    plain = summarize(EvalReport(suite="p", model="m", started_at="t", tasks=[_result("c", True, 1)]))
    assert phrasing_summary(plain) == "" and "## Phrasings" not in markdown(plain)


def test_eval_refuses_phrasing_for_miniwob_and_an_unknown_phrasing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["eval", "miniwob", "--model", "kite/oracle", "--phrasing", "terse"]) == 2
    assert "--phrasing applies to task suites" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["eval", "mail", "--model", "kite/oracle", "--phrasing", "shouty"])
    assert exc.value.code == 2
