"""Bad command lines: one line on stderr, exit 2, no traceback, and nothing started (no run record)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kite_browser.agent.cli import main


def kite(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    try:
        code = main(list(args))
    except SystemExit as exc:  # argparse's own usage errors exit from inside parse_args
        code = int(exc.code or 0)
    return code, capsys.readouterr().err


def assert_usage_error(code: int, err: str, *words: str) -> None:
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("kite: error:"), err
    for word in words:
        assert word in lines[0], (word, err)


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("javascript:alert(1)", "'javascript:' URLs cannot be opened"),
        ("file:///etc/passwd", "'file:' URLs cannot be opened"),
        ("data:text/html,<h1>hi</h1>", "'data:' URLs cannot be opened"),
        ("chrome://settings", "'chrome:' URLs cannot be opened"),
        ("not a url", "is not a URL"),
        ("http://", "is not a URL"),
        ("http://127.0.0.1:99999/", "out of range"),
        ("", "--start-url is empty"),
        ("   ", "--start-url is empty"),
    ],
)
def test_bad_start_url_fails_before_anything_starts(capsys, tmp_path: Path, url: str, says: str):
    runs = tmp_path / "runs"
    code, err = kite(
        capsys, "run", "a task", "--model", "kite/scripted", "--runs-dir", str(runs), "--start-url", url
    )
    assert_usage_error(code, err, says)
    assert not list(runs.glob("*")), "a run started"


@pytest.mark.parametrize("flag", ["--allowed-domain", "--blocked-domain"])
@pytest.mark.parametrize("value", ["", "http://", "*.", "example.com:99999"])
def test_bad_domain_is_a_usage_error(capsys, flag: str, value: str):
    code, err = kite(capsys, "run", "a task", "--model", "kite/scripted", flag, value)
    assert_usage_error(code, err, flag, "not a domain")


def test_bad_domain_in_a_config_file_is_a_config_error(capsys, tmp_path: Path):
    path = tmp_path / "kite.yaml"
    path.write_text("safety:\n  allowed_domains: ['http://']\n", encoding="utf-8")
    code, err = kite(capsys, "--config", str(path), "run", "a task", "--model", "kite/scripted")
    assert_usage_error(code, err, "safety.allowed_domains", "not a domain")


@pytest.mark.parametrize("where", ["under-a-file", "proc"])
def test_unwritable_runs_dir_is_a_usage_error(capsys, tmp_path: Path, where: str):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    runs = blocker / "runs" if where == "under-a-file" else Path("/proc/kite-runs")
    code, err = kite(capsys, "run", "a task", "--model", "kite/scripted", "--runs-dir", str(runs))
    assert_usage_error(code, err, "cannot write run records", "--runs-dir")


def test_non_utf8_config_is_a_usage_error(capsys, tmp_path: Path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes("agent:\n  language: en  # caf\xe9\n".encode("latin-1"))
    code, err = kite(capsys, "--config", str(path), "run", "a task", "--model", "kite/scripted")
    assert_usage_error(code, err, "not UTF-8", str(path))


def test_a_good_start_url_is_kept(tmp_path: Path):
    from kite_browser.agent.commands._agent_opts import check_start_url
    from kite_browser.agent.config import BrowserConfig

    assert check_start_url("example.com/path", BrowserConfig()) == "https://example.com/path"
    assert check_start_url("http://127.0.0.1:8080/x", BrowserConfig()) == "http://127.0.0.1:8080/x"
    assert check_start_url("about:blank", BrowserConfig()) == "about:blank"
    assert check_start_url("file:///tmp/x.html", BrowserConfig(allow_file_urls=True)) == "file:///tmp/x.html"
    assert check_start_url(None, BrowserConfig()) is None


def test_bad_tui_start_url_fails_before_the_ui_opens(capsys):
    code, err = kite(capsys, "tui", "--model", "kite/scripted", "--start-url", "javascript:alert(1)")
    assert_usage_error(code, err, "'javascript:' URLs cannot be opened")


@pytest.mark.parametrize(
    ("url", "says"),
    [("javascript:alert(1)", "'javascript:' URLs"), ("http://", "is not a URL"), ("", "is empty")],
)
def test_bad_start_url_in_a_task_file_fails_before_any_task_runs(capsys, tmp_path: Path, url: str, says: str):
    tasks = tmp_path / "tasks.yaml"
    tasks.write_text(
        f"- {{id: fine, task: look, start_url: 'http://127.0.0.1:9/'}}\n- {{id: bad, task: look, start_url: '{url}'}}\n"
    )
    out = tmp_path / "results.jsonl"
    code, err = kite(capsys, "batch", str(tasks), "--model", "kite/scripted", "--out", str(out))
    assert_usage_error(code, err, "task #2 (bad)", "start_url", says)
    assert not out.exists(), "a task ran"


@pytest.mark.parametrize("flag", ["-nope", "repeats", "--policy=+recap"])
def test_an_unknown_or_unsigned_policy_ablation_is_a_usage_error(capsys, tmp_path: Path, flag: str):
    """``kite eval --policy -NAME`` turns one step policy off; anything else names no ablation."""
    runs = tmp_path / "runs"
    args = ["--policy", flag] if not flag.startswith("--") else [flag]
    code, err = kite(capsys, "eval", "sites", "--model", "kite/oracle", "--runs-dir", str(runs), *args)
    assert_usage_error(code, err, "--policy: expected -NAME", "repeats, unfilled")
    assert not list(runs.glob("*")), "an eval started"
