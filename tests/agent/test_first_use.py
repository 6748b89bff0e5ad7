"""First-use rough edges: kite tui flags and labels, the unknown-model notice, --headed without a display,
and no API key in run records."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Label

from kite_browser.agent.browser.launch import LaunchFailedError
from kite_browser.agent.browser.session import BrowserSession
from kite_browser.agent.cli import build_parser, main
from kite_browser.agent.commands._agent_opts import load_with_args
from kite_browser.agent.commands.tui import with_cli_secrets
from kite_browser.agent.config import BrowserConfig
from kite_browser.agent.llm.capabilities import first_notice
from kite_browser.agent.run.loop import Agent
from kite_browser.agent.tui.app import KiteApp
from kite_browser.agent.tui.history import TaskEntry
from kite_browser.agent.tui.runner import TuiConfirmer
from kite_browser.safety.confirm import ConfirmRequest
from kite_browser.safety.policy import ConfirmLevel, Decision
from kite_browser.safety.secrets import SecretStore


def test_kite_tui_takes_secret_approve_and_max_steps(tmp_path: Path):
    args = build_parser().parse_args(
        [
            *(
                "tui",
                "--secret",
                "password=correct-horse-battery",
                "--approve",
                "confirm",
                "--max-steps",
                "3",
            ),
            *("--model", "kite/scripted", "--runs-dir", str(tmp_path / "runs")),
        ]
    )
    config = with_cli_secrets(load_with_args(args), args.secret)
    assert config.agent.max_steps == 3
    assert config.safety.approve == ["confirm"]
    store = SecretStore.from_sources(config.safety, env={})
    assert "password" in store.names()
    assert "correct-horse-battery" not in store.redact("typed correct-horse-battery")


class _App:
    def __init__(self) -> None:
        self.notes: list[str] = []
        self.modals = 0

    def notify(self, text: str, **_: Any) -> None:
        self.notes.append(text)

    def push_screen(self, *_: Any, **__: Any) -> None:
        self.modals += 1
        raise AssertionError("the modal opened although --approve covers the request")


async def test_tui_approve_answers_without_the_modal():
    app = _App()
    request = ConfirmRequest(
        action={"action": "click", "index": 3}, decision=Decision(level=ConfirmLevel.CONFIRM, reasons=["pay"])
    )
    answer = await TuiConfirmer(app, approve=["confirm"]).confirm(request)  # type: ignore[arg-type]
    assert answer.approved and app.modals == 0 and app.notes


async def test_the_form_fields_have_labels(kite_config, tmp_path: Path):
    app = KiteApp(kite_config(), history_path=tmp_path / "h.json", start=TaskEntry(task="", model="kite/x"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        labels = [str(label.render()) for label in app.screen.query(Label)]
        assert {"Task", "Start URL (optional)"} <= set(labels), labels
        assert any(text.startswith("Model") for text in labels)
        assert len(app.screen.query(Input)) == 3


def test_unknown_model_notice_once_per_machine(tmp_path: Path):
    assert first_notice("openai/never-heard-of", tmp_path) is True
    assert first_notice("openai/never-heard-of", tmp_path) is False
    assert first_notice("openai/another", tmp_path) is True
    (tmp_path / "notices-seen.json").write_text("{broken")
    assert first_notice("openai/another", tmp_path) is True  # an unreadable file never hides a notice


def test_unknown_model_notice_is_a_warning_only_the_first_time(tmp_path: Path, monkeypatch, caplog):
    from kite_browser.agent.config import LLMConfig
    from kite_browser.agent.llm import capabilities

    monkeypatch.setattr(capabilities, "notices_dir", tmp_path)
    caplog.set_level(logging.INFO, logger="kite.llm")
    for _ in range(2):
        capabilities._resolve.cache_clear()  # a new process each time, as two runs would be
        capabilities.capabilities_for("openai/brand-new-model", "http://127.0.0.1:1/v1", LLMConfig())
    notices = [r for r in caplog.records if "not in litellm's tables" in r.getMessage()]
    assert [r.levelno for r in notices] == [logging.WARNING, logging.INFO]


def test_the_bundled_model_is_no_stranger(tmp_path: Path, monkeypatch, caplog):
    """providers.yaml describes the bundled model: its first run is not told the model is unknown."""
    from kite_browser.agent.config import LLMConfig
    from kite_browser.agent.llm import capabilities
    from kite_browser.agent.llm.local_pins import MODEL_ALIAS

    monkeypatch.setattr(capabilities, "notices_dir", tmp_path)
    caplog.set_level(logging.INFO, logger="kite.llm")
    capabilities._resolve.cache_clear()
    caps = capabilities.capabilities_for(f"openai/{MODEL_ALIAS}", "http://127.0.0.1:1/v1", LLMConfig())
    assert caps.source == "providers.yaml"
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text


async def test_headed_without_a_display_says_how_to_get_one(monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with pytest.raises(LaunchFailedError, match="xvfb-run"):
        await BrowserSession(BrowserConfig(headless=False)).start()


def test_kite_run_headed_without_a_display_is_a_usage_error(monkeypatch, capsys, tmp_path: Path):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    code = main(["run", "a task", "--headed", "--model", "kite/scripted", "--runs-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "needs a display" in err and "xvfb-run" in err and len(err.strip().splitlines()) == 1
    assert not list(tmp_path.glob("*/run.json"))


async def test_api_key_is_kept_out_of_the_run_record(kite_config, ctx_session, scripted_model):
    scripted_model.script([{"name": "done", "arguments": {"success": True, "answer": "ok"}}])
    key = "sk-local-per-start-0123456789abcdef"
    config = kite_config(**{"llm.api_key": key, "safety.secrets": {"pin": "271828182845"}})
    result = await Agent(config, context=ctx_session).run("say ok")
    text = (Path(result.run_dir) / "run.json").read_text()
    assert key not in text and "271828182845" not in text
    assert json.loads(text)["config"]["llm"]["api_key"] == "***"
