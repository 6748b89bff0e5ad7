"""Browser flags shared by the commands that drive a browser (run, snapshot, tui, batch ...).

``add_browser_options(parser)`` adds the flags; ``browser_overrides(args)`` turns them into dotted config
keys for ``agent.config.load_config(overrides=...)`` (unset flags give no key, so config files still apply).
"""

from __future__ import annotations

import argparse
import re

_VIEWPORT = re.compile(r"^\s*(\d{2,5})\s*[xX×,]\s*(\d{2,5})\s*$")


def parse_viewport(text: str) -> tuple[int, int]:
    """'1280x800' -> (1280, 800); argparse reports anything else as a usage error."""
    match = _VIEWPORT.match(text)
    if not match:
        raise argparse.ArgumentTypeError(f"invalid viewport '{text}': use WIDTHxHEIGHT, e.g. 1280x800")
    width, height = int(match.group(1)), int(match.group(2))
    if not (200 <= width <= 7680 and 200 <= height <= 4320):
        raise argparse.ArgumentTypeError(
            f"invalid viewport '{text}': width must be 200-7680 and height 200-4320"
        )
    return width, height


def add_browser_options(parser: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    group = parser.add_argument_group("browser")
    group.add_argument(
        "--headed", action="store_true", default=None, help="show the browser window (default: headless)"
    )
    group.add_argument(
        "--viewport",
        type=parse_viewport,
        metavar="WxH",
        help="viewport size in CSS pixels (default 1280x800)",
    )
    group.add_argument(
        "--browser-arg",
        action="append",
        dest="browser_args",
        metavar="ARG",
        help="an extra Chromium flag, written with '=': --browser-arg=--lang=de (repeatable)",
    )
    mode = group.add_mutually_exclusive_group()
    mode.add_argument(
        "--profile", metavar="NAME", help="use the persistent profile NAME (cookies and storage survive)"
    )
    mode.add_argument(
        "--attach",
        metavar="URL",
        help="attach to a running Chrome's DevTools endpoint (http://127.0.0.1:9222 or ws://...)",
    )
    group.add_argument("--chromium", metavar="PATH", help="the Chrome or Chromium executable to use")
    return group


def browser_overrides(args: argparse.Namespace) -> dict[str, object]:
    """Dotted config keys for the browser flags that were given."""
    out: dict[str, object] = {}
    if getattr(args, "headed", None):
        out["browser.headless"] = False
    size = getattr(args, "viewport", None)
    if size:
        out["browser.viewport_width"], out["browser.viewport_height"] = size
    if getattr(args, "browser_args", None):
        out["browser.args"] = list(args.browser_args)
    for flag, key in (
        ("profile", "browser.profile"),
        ("attach", "browser.attach"),
        ("chromium", "browser.chromium_path"),
    ):
        value = getattr(args, flag, None)
        if value:
            out[key] = value
    return out
