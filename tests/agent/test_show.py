"""Debuggable runs: each step's record holds the exact request sent (redacted; the system message and tools
stored once per run) and the raw reply; ``kite show`` prints a run step by step from it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kite_browser.agent import Agent, FunctionModel, ModelView
from kite_browser.agent.cli import main
from kite_browser.agent.config import KiteConfig
from kite_browser.agent.run.record import load_request
from kite_browser.safety.secrets import SecretStore
from tests.kite_cli import run_kite

SECRET = "hunter22-quokka"


@pytest.fixture
async def run(kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any) -> dict[str, Any]:
    """A three-step run on the shop: scroll, open a product, done; the task itself holds a secret's value."""

    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        if view.step == 1:
            return (
                "Scrolling first.\n```json\n"
                + json.dumps({"action": "scroll", "direction": "down"})
                + "\n```"
            )
        if view.step == 2:
            mug = next(e for e in view.observation.elements if e.name == "Sky Blue Espresso Mug")
            return {"action": "click", "index": mug.index}
        return {"action": "done", "success": True, "answer": "opened"}

    model = FunctionModel(fn)
    secrets = SecretStore.from_sources(kite_config().safety, cli=[f"pw={SECRET}"])
    config = kite_config(**{"run.screenshots": True})
    agent = Agent(config, model=model, context=ctx_session, secrets=secrets)
    result = await agent.run(f"Open a mug (my password is {SECRET})", start_url=sites.url("/shop/"))
    assert result.success and result.steps == 3, result
    return {"result": result, "model": model, "secrets": secrets, "dir": Path(result.run_dir or "")}


async def test_each_step_records_the_exact_request_redacted_and_the_raw_reply_and_kite_show_prints_it(
    run: dict[str, Any], capsys: Any
) -> None:
    run_dir, model = run["dir"], run["model"]
    steps = [json.loads(x) for x in (run_dir / "steps.jsonl").read_text().splitlines()]
    asked = [s for s in steps if s["step"] > 0]
    assert len(asked) == 3 and all("request" in s and "reply" in s for s in asked)
    for s, sent, view in zip(asked, model.messages, model.views, strict=True):
        messages, tools = load_request(run_dir, s["request"])
        assert messages == run["secrets"].redact_obj(sent), f"step {s['step']}: not what was sent"
        assert tools == view.tools and tools
    assert SECRET in model.messages[0][1]["content"], "the task's own words reach the model"
    on_disk = b"".join(p.read_bytes() for p in run_dir.rglob("*") if p.is_file())
    assert SECRET.encode() not in on_disk and b"<secret>pw</secret>" in on_disk
    assert len(list((run_dir / "sent").glob("system-*.txt"))) == 1, "the system message is stored once"
    assert len(list((run_dir / "sent").glob("tools-*.json"))) == 1
    assert {s["request"]["messages"][0]["content_file"] for s in asked} == {
        str(next((run_dir / "sent").glob("system-*.txt")).relative_to(run_dir))
    }
    assert asked[0]["reply"]["content"].startswith("Scrolling first.\n```json")
    assert json.loads(asked[1]["reply"]["tool_calls"][0]["arguments"])["index"] >= 0, "raw arguments kept"
    shots = sorted(p.name for p in (run_dir / "screenshots").iterdir())
    assert shots == ["final.png", "step-001.png", "step-002.png", "step-003.png"]
    tool_names = [t["function"]["name"] for t in model.views[0].tools or []]
    show_prints_the_run_step_by_step(str(run_dir), capsys, tool_names)


def show_prints_the_run_step_by_step(run_dir: str, capsys: Any, tool_names: list[str]) -> None:
    assert main(["show", run_dir]) == 0
    out = capsys.readouterr().out
    assert out.index("Step 0") < out.index("Step 1") < out.index("Step 2") < out.index("Step 3")
    assert "task Open a mug (my password is <secret>pw</secret>)" in out and SECRET not in out
    assert "result success (done) in 3 steps" in out
    step2 = out[out.index("Step 2") : out.index("Step 3")]
    assert "# Result of your last actions" in step2 and 'scroll direction="down" → ok' in step2, (
        "the prompt is shown"
    )
    assert "reply" in step2 and 'click({"index":' in step2 and '"action": "click"' in step2
    assert "→ ok" in step2 and "Sky Blue Espresso Mug" in step2
    assert "You are Kite" not in out, "the system message is shown only with --step"

    assert main(["show", run_dir, "--step", "1"]) == 0
    one = capsys.readouterr().out
    assert "You are Kite" in one and f"tools {', '.join(tool_names)}\n" in one and "Scrolling first." in one
    assert "Step 2" not in one

    assert main(["show", run_dir, "--step", "7"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "step 7 is not in" in err and "(it has steps 0–3)" in err


def test_kite_show_usage_errors_are_one_line(tmp_path: Path, capsys: Any) -> None:
    assert main(["show", str(tmp_path / "nope")]) == 2
    assert (
        capsys.readouterr().err.strip()
        == f"kite: error: no run record at {tmp_path / 'nope'}: no such folder"
    )
    assert main(["show", str(tmp_path)]) == 2
    assert "is not a run record: it has no steps.jsonl" in capsys.readouterr().err
    assert main(["show", "last", "--runs-dir", str(tmp_path)]) == 2
    assert f"no run records in {tmp_path}" in capsys.readouterr().err


def _record(folder: Path, task: str) -> None:
    folder.mkdir(parents=True)
    (folder / "run.json").write_text(json.dumps({"task": task, "model": "kite/scripted"}))
    (folder / "steps.jsonl").write_text(json.dumps({"step": 0, "url": "http://127.0.0.1/"}) + "\n")


def test_kite_show_last_finds_the_newest_run_also_inside_an_eval_folder(tmp_path: Path) -> None:
    """``kite eval`` puts its runs in ``runs/eval-SUITE-TIME/``: ``kite show last`` right after it shows them."""
    _record(tmp_path / "20261125-010000-aaaaaa", "an older kite run")
    _record(tmp_path / "eval-sites-20261125-020000" / "20261125-020001-sites-shop-search-r0", "the eval's")
    _record(tmp_path / "20261125-015959-bbbbbb", "a newer kite run, older than the eval")
    out = run_kite("show", "last", "--runs-dir", str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert "task the eval's" in out.stdout and "sites-shop-search-r0" in out.stdout, out.stdout
