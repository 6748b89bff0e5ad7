"""``kite run --save-workflow`` then ``kite replay`` as a user types them (the command line in the test's process,
tests/kite_cli.py; the run's model is the scripted fake, the replay has none)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from kite_browser.evals.sites import SitesServer
from tests.agent.test_cli import _run
from tests.kite_cli import run_kite

pytestmark = pytest.mark.timeout(600)  # two runs each starting Chromium: minutes on a loaded machine


def test_run_saves_a_workflow_and_replay_runs_it_with_another_value(
    tmp_path: Path, sites: SitesServer
) -> None:
    script = [
        {"name": "type", "arguments": {"index": 5, "text": "mug"}},
        {"name": "pressKey", "arguments": {"key": "Enter"}},
        {"name": "done", "arguments": {"success": True, "answer": "Searched for mug: 4 results"}},
    ]
    wf_path = tmp_path / "search.yaml"
    args = ["run", "search for mug", "--model", "kite/scripted", "--start-url", sites.url("/shop/")]
    proc = _run(tmp_path, script, *args, "--save-workflow", str(wf_path))
    err = proc.stderr
    assert proc.returncode == 0, err
    assert f"workflow saved to {wf_path}: 2 steps" in err and "variables: search=mug" in err
    saved = yaml.safe_load(wf_path.read_text())
    assert saved["variables"] == {"search": {"default": "mug"}}
    assert [s["action"] for s in saved["steps"]] == ["type", "pressKey"]
    assert saved["steps"][0]["target"]["attrs"]["id"] == "search"
    assert "{search}" in saved["answer"]["text"]  # the answer is about the value typed

    replay = run_kite(
        *("replay", str(wf_path), "--var", "search=bag", "--json"),
        env={"KITE_RUNS_DIR": str(tmp_path / "runs"), "KITE_HOME": str(tmp_path / "home")},
    )
    assert replay.returncode == 0, replay.stderr
    out = json.loads(replay.stdout.strip().splitlines()[-1])
    assert out["success"] and out["done"] == 2 and out["model_calls"] == 0 and out["replayed"] is True
    assert "bag" in out["answer"] and "mug" not in out["answer"], out["answer"]
    assert Path(out["run_dir"]).name.endswith("-replay-search")  # the folder says what was replayed
    run = json.loads(Path(out["run_dir"], "run.json").read_text())
    assert run["workflow"] == str(wf_path) and run["task"] == "search for mug"
    steps = [json.loads(x) for x in Path(out["run_dir"], "steps.jsonl").read_text().splitlines()]
    assert steps[1]["actions"][0]["action"]["text"] == "bag"
    assert "q=bag" in steps[2]["actions"][0]["result"]["effects"]["url_after"]


def test_a_secret_the_workflow_needs_is_asked_for_before_the_browser_starts(tmp_path: Path) -> None:
    wf_path = tmp_path / "login.yaml"
    wf_path.write_text(
        "version: 1\nstart_url: http://127.0.0.1:1/account/login\n"
        "variables:\n  demo_password: {secret: true}\n"
        "steps:\n- action: type\n  args: {text: <secret>demo_password</secret>}\n"
        "  target: {tag: input, name: Password}\n"
    )
    env = {"KITE_RUNS_DIR": str(tmp_path / "runs"), "KITE_HOME": str(tmp_path / "home")}
    replay = run_kite("replay", str(wf_path), env=env)
    assert replay.returncode == 2 and replay.stderr.count("\n") == 1, replay.stderr
    assert "needs the secret demo_password: give --secret demo_password=VALUE" in replay.stderr
    assert not any((tmp_path / "runs").glob("*/run.json"))  # no record: nothing started


def test_a_failed_run_saves_no_workflow(tmp_path: Path, sites: SitesServer) -> None:
    script = [{"name": "done", "arguments": {"success": False, "answer": "could not"}}]
    wf_path = tmp_path / "nothing.yaml"
    args = ["run", "do nothing", "--model", "kite/scripted", "--start-url", sites.url("/shop/")]
    proc = _run(tmp_path, script, *args, "--save-workflow", str(wf_path))
    err = proc.stderr
    assert proc.returncode == 1 and "workflow not saved: the run did not succeed" in err
    assert not wf_path.exists()
