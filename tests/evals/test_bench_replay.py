"""The replay bench's arithmetic (evals/bench/replay.py): the replay against the agent's run alone (no context,
no check) with 1 s per model call, per task, so a change of load between two tasks does not move the ratio."""

from __future__ import annotations

from kite_browser.evals.bench.replay import Row, ratios, summary, with_model_s


def _row(task: str, run_s: float, calls: int, replay_s: float, ok: bool = True) -> Row:
    return Row(
        task,
        True,
        calls,
        agent_s=run_s + 3.0,
        agent_run_s=run_s,
        agent_calls=calls,
        replay_ok=ok,
        replay_s=replay_s,
    )


def test_the_ratio_is_per_task_against_the_run_with_a_1_s_model() -> None:
    rows = [
        _row("quick", run_s=2.0, calls=3, replay_s=1.0),  # 1.0 / (2 + 3) = 0.2
        _row("slow-load", run_s=20.0, calls=4, replay_s=12.0),  # 12 / 24 = 0.5
        _row("long", run_s=6.0, calls=10, replay_s=1.6),  # 1.6 / 16 = 0.1
        _row("failed", run_s=1.0, calls=1, replay_s=0.1, ok=False),  # not counted
    ]
    assert with_model_s(rows[0]) == 5.0  # the context and the check (agent_s) left out
    got = ratios(rows)
    assert got["replay_vs_agent_1s_model_ratio_per_task_median"] == 0.2
    assert got["tasks_at_or_under_one_fifth"] == "2/3"
    totals = summary(rows, record_s=10.0)
    assert totals["replay_vs_agent_1s_model_ratio"] == round(
        14.6 / 45.0, 3
    )  # the sums, dominated by slow-load
    assert totals["model_calls_agent"] == 18 and totals["replay_successes"] == 3
    assert ratios([_row("failed", 1.0, 1, 0.1, ok=False)]) == {}
