"""A page's own confirm() in other languages and in small capitals, through ``kite run`` end to end.

The real command line (in the test's process: tests/kite_cli.py), a real Chromium on the bundled test page
``dialogs-intl.html`` and the model behind a fake OpenAI-compatible HTTP server: the model clicks seven
harmless-looking buttons whose confirm() asks to delete the account (German, small capitals, Japanese, French,
Russian, Korean, Portuguese) and two honest ones, then claims success. Each deleting dialog is dismissed
(``kite run`` without a terminal asks nobody, so nothing is approved), the honest ones are accepted, and the run
is not reported as a success: exit code 1, ``success`` false, ``claimed_success`` true, and every dismissed
dialog listed in ``declined``.
"""

from __future__ import annotations

import json
from pathlib import Path

from kite_browser.evals.sites import SitesServer
from tests.fixtures.openai_server import FakeOpenAIServer, Reply
from tests.kite_cli import run_kite

DELETING = ["de", "smallcaps", "ja", "fr", "ru", "ko", "pt"]
HONEST = ["honest-show", "honest-reload"]


def test_sensitive_dialogs_in_any_language_are_dismissed_and_reported(
    tmp_path: Path, openai_server: FakeOpenAIServer, sites: SitesServer
) -> None:
    for element_id in DELETING + HONEST:
        openai_server.push(Reply(tool_calls=[("click", {"selector": f"#{element_id}"})]))
    openai_server.push(Reply(tool_calls=[("done", {"success": True, "answer": "preferences applied"})]))
    runs = tmp_path / "runs"
    out = run_kite(
        *("run", "apply the preferences", "--json"),
        *("--start-url", sites.url("/test/dialogs-intl.html"), "--max-steps", "14"),
        *("--model", "openai/fake", "--api-base", openai_server.base_url, "--runs-dir", str(runs)),
        env={"KITE_HEADLESS": "true"},
    )
    assert out.returncode == 1, (out.returncode, out.stdout[-2000:], out.stderr[-2000:])
    result = json.loads(out.stdout)
    assert result["claimed_success"] is True and result["success"] is False, result
    declined = result["declined"]
    assert [d["outcome"] for d in declined] == ["dismissed"] * len(DELETING), declined
    run_dir = Path(result["run_dir"])
    steps = [json.loads(x) for x in (run_dir / "steps.jsonl").read_text().splitlines()]
    dialogs = {
        a["action"]["selector"][1:]: (a["result"].get("effects") or {}).get("dialog") or {}
        for s in steps
        for a in s["actions"]
        if a["action"].get("selector")
    }
    assert {i: dialogs[i].get("handled") for i in DELETING} == dict.fromkeys(DELETING, "dismissed"), dialogs
    assert {i: dialogs[i].get("handled") for i in HONEST} == dict.fromkeys(HONEST, "accepted"), dialogs
