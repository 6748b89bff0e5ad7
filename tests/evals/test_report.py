"""Reports: JSON (the documented keys), Markdown, one self-contained HTML page; compare; the CLI."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest

from kite_browser.agent.batch.checks import CheckOutcome
from kite_browser.agent.batch.results import TaskResult
from kite_browser.agent.cli import main
from kite_browser.evals.harness import EvalReport, summarize, wilson
from kite_browser.evals.report import compare, load_json, markdown, write_json
from kite_browser.evals.report_html import html_report, write_html

PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000")


def _report(tmp_path: Path, outcomes: list[tuple[str, bool, int]], model: str = "kite/oracle") -> EvalReport:
    tasks = []
    for tid, ok, steps in outcomes:
        run = tmp_path / f"run-{model.replace('/', '_')}-{tid}"
        (run / "screenshots").mkdir(parents=True, exist_ok=True)
        (run / "screenshots" / "step-001.png").write_bytes(PNG)
        step = {
            "step": 1,
            "url": "http://x/",
            "actions": [
                {
                    "action": {"action": "click", "index": 3},
                    "decision": {"level": "confirm", "allowed": True},
                    "result": {"ok": ok, "message": "clicked <b>"},
                }
            ],
        }
        (run / "steps.jsonl").write_text(json.dumps(step) + "\n", encoding="utf-8")
        tasks.append(
            TaskResult(
                id=tid,
                success=ok,
                claimed_success=ok,
                score=float(ok),
                steps=steps,
                tokens_in=100,
                tokens_out=10,
                wall_s=1.5,
                model_latency_s=0.5,
                stop_reason="done",
                run_dir=str(run),
                task=f"do {tid}",
                check=CheckOutcome(passed=ok, failures=[] if ok else ["url: nope"]),
            )
        )
    return summarize(EvalReport(suite="sites", model=model, started_at="t", tasks=tasks))


def test_the_policies_that_acted_are_summed_over_the_tasks(tmp_path: Path) -> None:
    report = _report(tmp_path, [("a", True, 2), ("b", False, 3), ("c", True, 1)])
    report.tasks[0].policies_acted = {"recap": 2, "repeats": 0, "claims": 0}
    report.tasks[1].policies_acted = {"recap": 0, "repeats": 1, "claims": 0}
    report = summarize(report)  # the third task ran no policy (a replay, say)
    assert report.policies_acted == {"recap": (2, 1), "repeats": (1, 1), "claims": (0, 0)}
    assert "- step policies, acted in steps/tasks: recap 2/1, repeats 1/1, claims 0/0\n" in markdown(report)
    assert load_json(write_json(report, tmp_path / "r.json")).policies_acted == report.policies_acted


def test_wilson_interval() -> None:
    assert wilson(0, 0) == (0.0, 0.0)
    lo, hi = wilson(10, 10)
    assert hi == 1.0 and 0.69 < lo < 0.73
    lo, hi = wilson(5, 10)
    assert lo < 0.5 < hi


def test_json_markdown_html(tmp_path: Path) -> None:
    report = _report(tmp_path, [("a", True, 3), ("b", False, 5)])
    data = json.loads(write_json(report, tmp_path / "out" / "r.json").read_text(encoding="utf-8"))
    assert {"suite", "model", "success_rate", "tasks"} <= set(data)
    assert {
        "id",
        "success",
        "score",
        "steps",
        "tokens_in",
        "tokens_out",
        "cost_usd",
        "wall_s",
        "overhead_s",
        "failures",
        "stop_reason",
    } <= set(data["tasks"][0])
    assert data["success_rate"] == 0.5 and data["overhead_s"] == 2.0
    assert load_json(tmp_path / "out" / "r.json") == report
    md = markdown(report)
    assert "1/2 = 50.0%" in md and "| b | ❌ |" in md and "url: nope" in md
    page = write_html(report, tmp_path / "r.html").read_text(encoding="utf-8")
    assert page.count("data:image/png;base64,") == 2
    assert 'src="http' not in page and "<script" not in page and "<link" not in page
    assert "clicked &lt;b&gt;" in page and "confirm" in page and "do b" in page


def test_compare(tmp_path: Path) -> None:
    a = _report(tmp_path, [("a", True, 3), ("b", False, 5), ("c", True, 2)])
    b = _report(tmp_path, [("a", True, 4), ("b", True, 5), ("d", True, 1)], model="other")
    diff = compare(a, b)
    assert diff["changed"] == [
        {"id": "a", "success_a": 1.0, "success_b": 1.0, "steps_a": 3.0, "steps_b": 4.0},
        {"id": "b", "success_a": 0.0, "success_b": 1.0, "steps_a": 5.0, "steps_b": 5.0},
    ]
    assert diff["only_in_a"] == ["c"] and diff["only_in_b"] == ["d"]
    # only the shared tasks a and b are compared: 1/2 → 2/2 (c and d are listed, not counted)
    assert diff["shared"] == 2 and diff["a"]["n"] == 2 and diff["b"]["n"] == 2
    assert diff["success_rate_delta"] == pytest.approx(0.5, abs=1e-3)
    assert diff["steps_mean_delta"] == pytest.approx(0.5)


def test_cli_compare(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_json(_report(tmp_path, [("a", False, 3)]), tmp_path / "a.json")
    write_json(_report(tmp_path, [("a", True, 3)]), tmp_path / "b.json")
    assert main(["eval", "compare", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 0
    out = capsys.readouterr().out
    assert "fixed" in out and "a: success 0% → 100%" in out
    assert main(["eval", "compare", str(tmp_path / "a.json")]) == 2
    assert main(["eval", "compare", str(tmp_path / "a.json"), str(tmp_path / "missing.json")]) == 2


def test_cli_eval_custom_suite(
    tmp_path: Path, chromium_path: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = tmp_path / "mine.yaml"
    suite.write_text(
        "name: mine\ntasks:\n  - id: cart\n    task: Open the cart.\n    start_url: '{sites}/shop/'\n"
        "    check: {url: /shop/cart}\n    solution: [{click: {name: 'Cart', role: link}}]\n"
        "  - id: skipped\n    task: Not selected.\n",
        encoding="utf-8",
    )
    out_json, out_html = tmp_path / "r.json", tmp_path / "r.html"
    code = main(
        [
            "eval",
            str(suite),
            "--model",
            "kite/oracle",
            "--tasks",
            "cart",
            "--json",
            str(out_json),
            "--html",
            str(out_html),
            "--md",
            str(tmp_path / "r.md"),
            "--runs-dir",
            str(tmp_path / "runs"),
            *(["--chromium", chromium_path] if chromium_path else []),
        ]
    )
    assert code == 0, capsys.readouterr()
    data = json.loads(out_json.read_text(encoding="utf-8"))
    assert (
        data["suite"] == "mine"
        and [t["id"] for t in data["tasks"]] == ["cart"]
        and data["success_rate"] == 1.0
    )
    assert "data:image/png;base64," in out_html.read_text(encoding="utf-8")
    acted = data["policies_acted"]  # the oracle's kind of model has the default policies on
    assert set(acted) == set(data["tasks"][0]["policies_acted"]) and "repeats" in acted, acted
    assert f"step policies, acted in steps/tasks: {next(iter(acted))} " in capsys.readouterr().out
    assert main(["eval", str(suite), "--tasks", "nope", "--model", "kite/oracle"]) == 2


def test_html_escapes_and_handles_missing_run_dirs(tmp_path: Path) -> None:
    report = summarize(
        EvalReport(
            suite="s<",
            model="m",
            started_at="t",
            tasks=[
                TaskResult(
                    id="x",
                    success=False,
                    score=0,
                    stop_reason="runner_error",
                    message="<boom>",
                    run_dir=None,
                )
            ],
        )
    )
    page = html_report(report)
    assert "&lt;boom&gt;" in page and "Kite eval: s&lt;" in page


EMOJI = re.compile("[\u2600-\u27bf\u2b00-\u2bff\ufe0f\U0001f000-\U0001faff]")


def test_html_shows_each_steps_after_screenshot_tokens_and_why_without_emoji(tmp_path: Path) -> None:
    report = _report(tmp_path, [("a", True, 2), ("b", False, 2)])
    run = Path(report.tasks[1].run_dir or "")
    shots = {name: PNG + name.encode() for name in ("step-001.png", "step-002.png", "final.png")}
    for name, data in shots.items():
        (run / "screenshots" / name).write_bytes(data)
    steps = [
        {
            "step": s,
            "url": "http://x/",
            "usage": {"prompt_tokens": 1200 + s, "completion_tokens": 30},
            "actions": [],
        }
        for s in (1, 2)
    ]
    (run / "steps.jsonl").write_text("".join(json.dumps(s) + "\n" for s in steps), encoding="utf-8")
    page = html_report(report)

    b64 = {name: base64.b64encode(data).decode() for name, data in shots.items()}
    task_b = page[page.index('id="b-0"') :]
    step1, step2 = task_b.split("<h4>Step 1")[1].split("<h4>Step 2")
    assert (
        b64["step-002.png"] in step1 and "after step 1</figcaption>" in step1 and "1201 in / 30 out" in step1
    )
    assert b64["final.png"] in step2 and "after step 2 (the end of the run)" in step2 and "1202 in" in step2
    assert b64["step-001.png"] not in page, "a screenshot taken before the first step's actions is shown"
    assert "<td class=why>done: url: nope</td>" in page and "<td class=why>done</td>" in page
    assert (
        '<input type="checkbox" id="only-failed">' in page
        and "#only-failed:checked~#report .task-pass" in page
    )
    assert page.count("<tr class=task-fail>") == 1 and page.count('<details class="task task-pass"') == 1
    assert not EMOJI.search(page), EMOJI.findall(page)
    assert '<span class="mark fail">FAIL</span>' in page and '<span class="mark pass">PASS</span>' in page


def test_a_pass_the_model_called_a_failure_or_with_declined_actions_is_marked_everywhere(
    tmp_path: Path,
) -> None:
    """Not a plain ok: the markdown table, the HTML report and kite batch's table all say what the mark hides."""
    from types import SimpleNamespace
    from typing import cast

    from rich.console import Console

    from kite_browser.agent.batch.jobs import Job
    from kite_browser.agent.commands._batch_view import summary_table
    from kite_browser.agent.run.record import RefusedAction

    report = _report(tmp_path, [("said-no", True, 2), ("declined", True, 3), ("plain", True, 1)])
    said_no, declined, plain = report.tasks
    said_no.claimed_success = False  # the check passed; the model's done said it failed
    declined.declined = [RefusedAction(step=2, action='click "Pay"', outcome="declined")]
    assert (said_no.caveat, declined.caveat, plain.caveat) == (
        "the model said it failed",
        "1 action declined",
        "",
    )
    md = markdown(report)
    assert "| said-no | ✅ ⚠ the model said it failed |" in md
    assert "| declined | ✅ ⚠ 1 action declined |" in md and "| plain | ✅ |" in md
    page = html_report(report)
    assert page.count('class="mark pass caveat"') == 4  # the table and each task's heading, twice each
    assert "PASS?" in page and "the model said it failed" in page
    console = Console(record=True, width=200)
    jobs = cast(list[Job], [SimpleNamespace(id=t.id) for t in report.tasks])  # the table reads the ids
    console.print(summary_table(jobs, {t.id: t for t in report.tasks}))
    table = console.export_text()
    rows = {line.split("│")[1].strip(): line for line in table.splitlines() if line.count("│") > 3}
    assert "ok (the model said it failed)" in rows["said-no"]
    assert "ok (1 action declined)" in rows["declined"]
    assert "ok (" not in rows["plain"] and " ok " in rows["plain"]
