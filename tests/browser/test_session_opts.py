"""The shared browser flags (agent/commands/_browser_opts.py) and their config overrides."""

from __future__ import annotations

import pytest

from kite_browser.agent.cli import KiteArgumentParser
from kite_browser.agent.commands._browser_opts import add_browser_options, browser_overrides
from kite_browser.agent.config import load_config


def parser() -> KiteArgumentParser:
    p = KiteArgumentParser(prog="kite test")
    add_browser_options(p)
    return p


def test_no_flags_no_overrides() -> None:
    assert browser_overrides(parser().parse_args([])) == {}
    cfg = load_config(overrides=browser_overrides(parser().parse_args([])), env={})
    assert cfg.browser.headless and cfg.browser.viewport_width == 1280 and cfg.browser.viewport_height == 800


def test_every_flag_maps_to_a_config_key() -> None:
    args = parser().parse_args(
        [
            "--headed",
            "--viewport",
            "1024x768",
            "--browser-arg=--lang=de",
            "--browser-arg=--disable-gpu",
            "--profile",
            "work",
            "--chromium",
            "/opt/chrome",
        ]
    )
    over = browser_overrides(args)
    assert over == {
        "browser.headless": False,
        "browser.viewport_width": 1024,
        "browser.viewport_height": 768,
        "browser.args": ["--lang=de", "--disable-gpu"],
        "browser.profile": "work",
        "browser.chromium_path": "/opt/chrome",
    }
    cfg = load_config(overrides=over, env={})
    assert not cfg.browser.headless
    assert (cfg.browser.viewport_width, cfg.browser.viewport_height) == (1024, 768)
    assert cfg.browser.args == ["--lang=de", "--disable-gpu"]
    assert cfg.browser.profile == "work" and cfg.browser.chromium_path == "/opt/chrome"
    attach = browser_overrides(parser().parse_args(["--attach", "http://127.0.0.1:9222"]))
    assert attach == {"browser.attach": "http://127.0.0.1:9222"}


@pytest.mark.parametrize(
    "argv",
    [
        ["--viewport", "big"],
        ["--viewport", "1280"],
        ["--viewport", "100x100"],
        ["--viewport", "99999x800"],
        ["--profile", "a", "--attach", "http://127.0.0.1:9222"],
        ["--headed=yes"],
    ],
)
def test_bad_values_are_one_line_usage_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        parser().parse_args(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("kite: error:") and "\n" not in err


def test_help_lists_the_flags(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parser().parse_args(["--help"])
    out = capsys.readouterr().out
    for flag in (
        "--headed",
        "--viewport WxH",
        "--browser-arg ARG",
        "--profile NAME",
        "--attach URL",
        "--chromium PATH",
    ):
        assert flag in out
