"""The real ``kite run`` (in the test's process, tests/kite_cli.py; scripted model over litellm, real browser,
a real HTTP server):

* success after a refusal: the user (batch mode, no approval) declines "Permanently delete", then the model
  calls ``done(success=true)``: the run is not a success; ``claimed_success`` and the declined action are
  shown on the terminal and in ``--json``;
* a secret submitted in a GET form lands in the URL: neither the progress lines, ``--json`` (``final_url``),
  nor the run folder carry it, nor its URL-encoded form.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote_plus

from tests.agent.test_safety_e2e import everything_on_disk
from tests.fixtures.browser import PagesServer
from tests.kite_cli import run_kite

VALUE = "S3cret/Value+x9"
PAGE = """<!doctype html><meta charset=utf-8><title>Old notes</title>
<p>Notes can be permanently deleted.</p>
<form action="/found" method=get><input id=q name=token><button id=go>Look up</button></form>
<button id=del onclick="this.textContent='deleted'">Permanently delete</button>"""


def test_claimed_success_after_a_refusal_and_no_secret_in_any_output(
    tmp_path: Path, pages_server: PagesServer
) -> None:
    url = pages_server.add("/notes", PAGE)
    pages_server.add("/found", "<p>found it</p>")
    script = [
        {"name": "click", "arguments": {"selector": "#del"}},
        {"name": "type", "arguments": {"selector": "#q", "text": "<secret>token</secret>"}},
        {"name": "click", "arguments": {"selector": "#go"}},
        {"name": "done", "arguments": {"success": True, "answer": "deleted the notes"}},
    ]
    args = ["run", "delete my old notes", "--model", "kite/scripted", "--start-url", url, "--json"]
    proc = run_kite(
        *args,
        "--secret",
        f"token={VALUE}",
        script=script,
        env={"KITE_RUNS_DIR": str(tmp_path / "runs"), "KITE_HOME": str(tmp_path / "home")},
    )
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert proc.returncode == 1, proc.stderr
    assert result["claimed_success"] is True and result["success"] is False
    (declined,) = result["declined"]
    assert declined["outcome"] == "declined" and "#del" in declined["action"]
    assert "Permanently delete" in declined["reason"]
    assert "the model reported success" in proc.stderr and "Permanently delete" in proc.stderr

    assert result["final_url"].endswith("/found?token=<secret>token</secret>"), result["final_url"]
    disk = everything_on_disk(result["run_dir"]).decode("utf-8", "replace")
    for text in (proc.stdout, proc.stderr, disk):
        assert VALUE not in text and quote_plus(VALUE) not in text


def test_tui_and_reports_show_the_claim_and_the_declined_actions() -> None:
    from kite_browser.agent.batch.results import TaskResult
    from kite_browser.agent.run.record import RefusedAction, RunResult
    from kite_browser.agent.tui.format import final_text
    from kite_browser.evals.report import claimed

    refused = RefusedAction(
        step=2, action='click button "Permanently delete"', outcome="declined", reason="no"
    )
    run = RunResult(success=False, claimed_success=True, declined=[refused], stop_reason="done", answer="ok")
    text = final_text(run)
    assert "failed" in text and "reported success" in text and "Permanently delete" in text
    task = TaskResult(**run.model_dump(), id="t1")
    assert claimed(task) == 'claimed success; not done: click button "Permanently delete" (declined); '
    honest = TaskResult(success=True, claimed_success=True, stop_reason="done", id="t2")
    assert claimed(honest) == ""
