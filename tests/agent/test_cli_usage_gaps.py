"""Usage-error gaps a README walkthrough found: unknown module names, a Chromium path that cannot run, snapshot
arguments, ``kite mcp --port`` without ``--http`` and an unroutable eval model are one line and exit 2 before
anything starts; an unreachable start URL says "could not open" once. The real ``kite`` CLI, in the test's process
(tests/kite_cli.py: what it prints and exits with, not its process)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.agent.test_cli_readme import one_usage_line
from tests.kite_cli import run_kite

ROOT = Path(__file__).resolve().parents[2]


def kite(*args: str, cwd: Path = ROOT, **env: str) -> subprocess.CompletedProcess[str]:
    """``kite ARGS`` in this process (tests/kite_cli.py), ``KITE_CHROMIUM`` unset unless given."""
    return run_kite(*args, cwd=cwd, env=env, unset=() if "KITE_CHROMIUM" in env else ("KITE_CHROMIUM",))


@pytest.mark.parametrize(
    "argv",
    [
        ["tools", "list", "--modules", "nosuch"],
        ["tools", "call", "chrome_launch", "--modules", "chrome,nosuch"],
        ["mcp", "--module", "nosuch"],
    ],
)
def test_an_unknown_module_name_typed_by_the_user_is_a_usage_error(argv: list[str]):
    line = one_usage_line(kite(*argv), "'nosuch'", "known modules:")
    assert all(name in line for name in ("chrome", "browser", "playwright_browser", "javascript")), line


def test_an_unknown_module_in_a_config_file_is_still_a_state_not_an_error(tmp_path: Path):
    config = tmp_path / "kite.yaml"
    config.write_text("modules: [nosuch]\n", encoding="utf-8")
    out = kite("--config", str(config), "tools", "list")
    assert out.returncode == 0, out
    assert out.stdout.startswith("nosuch [") and "module_not_found" in out.stdout, out.stdout


def test_a_chromium_flag_that_does_not_exist_is_a_usage_error(tmp_path: Path):
    runs = tmp_path / "runs"
    out = kite(
        "run", "a task", "--model", "kite/scripted", "--runs-dir", str(runs), "--chromium", "/nonexist"
    )
    one_usage_line(out, "--chromium '/nonexist' does not exist")
    assert not runs.exists(), "a run started"


@pytest.mark.parametrize("command", [["snapshot", "about:blank"], ["tools", "list"]])
def test_a_kite_chromium_that_cannot_run_is_a_usage_error(tmp_path: Path, command: list[str]):
    one_usage_line(kite(*command, KITE_CHROMIUM="/nonexist"), "KITE_CHROMIUM '/nonexist' does not exist")
    plain = tmp_path / "chrome"
    plain.write_text("not a program", encoding="utf-8")
    one_usage_line(kite(*command, KITE_CHROMIUM=str(plain)), "is not an executable file")


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        ([""], "an empty URL"),
        (["  "], "an empty URL"),
        (["nosuchfile.html"], "'nosuchfile.html': no such file"),
        (["./nope"], "'./nope': no such file"),
        (["pages/nope"], "'pages/nope': no such file"),
        (["file:///nonexist/x.html"], "no such file"),
        (["ftp://x"], "'ftp:' URLs are not supported"),
        (["chrome://settings"], "'chrome:' URLs are not supported"),
        (["javascript:1"], "'javascript:' URLs are not supported"),  # was opened as http://javascript:1
        (["JavaScript:alert(1)"], "'javascript:' URLs are not supported"),
        (["view-source:http://x"], "'view-source:' URLs are not supported"),
        (["blob:http://x/1"], "'blob:' URLs are not supported"),
        (["--budget", "0", "about:blank"], "--budget"),
        (["--budget", "-5", "about:blank"], "--budget"),
    ],
)
def test_bad_snapshot_arguments_are_usage_errors(tmp_path: Path, argv: list[str], says: str):
    one_usage_line(kite("snapshot", *argv, cwd=tmp_path), says)


def test_snapshot_of_a_local_file_opens_it(tmp_path: Path):
    (tmp_path / "page.html").write_text("<button>Local Button</button>", encoding="utf-8")
    out = kite("snapshot", "--json", "page.html", cwd=tmp_path)
    assert out.returncode == 0, out
    assert f'"url": "{(tmp_path / "page.html").as_uri()}"' in out.stdout
    assert "Local Button" in out.stdout


@pytest.mark.parametrize("flag", [["--port", "9000"], ["--token", "t"], ["--host", "0.0.0.0"]])
def test_mcp_http_options_without_http_are_usage_errors(flag: list[str]):
    one_usage_line(kite("mcp", *flag), f"{flag[0]} needs --http")


@pytest.mark.parametrize(
    ("flag", "says"),
    [
        (["--approve", "bogus"], "--approve: 'bogus' is neither a level (confirm) nor an action name"),
        (["--approve", "block"], "'block' cannot be approved"),
        (["--allowed-domain", "http://"], "argument --allowed-domain: 'http://' is not a domain"),
        (
            ["--blocked-domain", "http://x:99999"],
            "argument --blocked-domain: 'http://x:99999' is not a domain",
        ),
    ],
)
def test_bad_mcp_safety_flags_are_usage_errors(tmp_path: Path, flag: list[str], says: str):
    runs = tmp_path / "runs"
    one_usage_line(kite("mcp", *flag, "--runs-dir", str(runs)), says)
    assert not runs.exists(), "the server started"


@pytest.mark.parametrize(
    ("model", "says"),
    [("gpt4o", "litellm knows no provider for 'gpt4o'"), ("kite/nope", "no model kite/nope is registered")],
)
def test_kite_eval_refuses_an_unroutable_model_up_front(tmp_path: Path, model: str, says: str):
    runs = tmp_path / "runs"
    one_usage_line(kite("eval", "sites", "--model", model, "--runs-dir", str(runs)), says)
    assert not runs.exists(), "an eval started"


def test_an_unreachable_start_url_says_could_not_open_once(tmp_path: Path):
    out = kite(
        "run",
        "a task",
        "--model",
        "kite/scripted",
        "--runs-dir",
        str(tmp_path),
        "--start-url",
        "http://127.0.0.1:1/",
    )
    assert out.returncode == 1, out
    text = out.stdout + out.stderr
    assert "start_url_unreachable" in text, text
    assert text.count("could not open") == 1, text


BROWSER_COMMANDS = [
    ["run", "a task", "--model", "kite/scripted"],
    ["tui"],
    ["batch", "tasks.jsonl", "--model", "kite/scripted"],
    ["eval", "sites", "--model", "kite/oracle"],
    ["snapshot", "about:blank"],
    ["demo"],
    ["tools", "call", "chrome_launch"],
    ["mcp"],
    ["serve", "--port", "0"],
]


@pytest.mark.parametrize("command", BROWSER_COMMANDS, ids=lambda c: c[0])
def test_a_config_file_chromium_that_cannot_run_is_a_usage_error(tmp_path: Path, command: list[str]):
    config = tmp_path / "kite.yaml"
    config.write_text("browser:\n  chromium_path: /nonexist\n", encoding="utf-8")
    runs = tmp_path / "runs"
    setting = f"{config}: browser.chromium_path '/nonexist' does not exist"
    one_usage_line(kite("--config", str(config), *command, cwd=tmp_path, KITE_RUNS_DIR=str(runs)), setting)
    one_usage_line(kite(*command, cwd=tmp_path, KITE_CONFIG=str(config), KITE_RUNS_DIR=str(runs)), setting)
    env = "KITE_CHROMIUM '/nonexist' does not exist"
    one_usage_line(kite(*command, cwd=tmp_path, KITE_CHROMIUM="/nonexist", KITE_RUNS_DIR=str(runs)), env)
    assert not runs.exists(), "a run started"


def test_a_config_file_chromium_is_not_checked_when_attaching(tmp_path: Path):
    config = tmp_path / "kite.yaml"
    config.write_text(
        "browser:\n  chromium_path: /nonexist\n  attach: http://127.0.0.1:1\n", encoding="utf-8"
    )
    out = kite("--config", str(config), "snapshot", "about:blank", cwd=tmp_path)
    assert out.returncode == 1 and "attach_failed" in out.stderr, out  # it tried the endpoint, not the path


def test_the_help_of_approve_says_that_a_terminal_run_asks():
    """``kite run`` in a terminal asks (TerminalConfirmer); the help said that it denies."""
    out = kite("run", "--help")
    assert out.returncode == 0, out
    text = " ".join(out.stdout.split())
    assert "kite run in a terminal and kite tui ask you" in text and "the default denies" not in text, text
