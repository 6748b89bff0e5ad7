"""Find (and on request install) a Chromium for Playwright to drive.

Order: an explicit path (config / KITE_CHROMIUM) → a system Chromium → on Debian/Ubuntu as root,
``apt-get install -y chromium`` → ``playwright install chromium``. The system Chromium is first-class:
machines without internet cannot download Playwright's own build.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys

from kite_browser.agent.base.errors import ChromiumNotFoundError, ConfigError, UsageError
from kite_browser.agent.config import load_config, playwright_browsers_dir

SYSTEM_CANDIDATES = (
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
    "/snap/bin/chromium",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
)

INSTALL_HINT = (
    "no Chromium found. Install one (Debian/Ubuntu: 'sudo apt-get install -y chromium'; elsewhere: "
    "'python -m playwright install chromium'), or point KITE_CHROMIUM / browser.chromium_path at a Chrome "
    "or Chromium executable."
)


def playwright_chromium() -> str | None:
    """Path of Playwright's own downloaded Chromium, if it is installed."""
    root = playwright_browsers_dir()
    for exe in sorted(root.glob("chromium-*/chrome-linux*/chrome"), reverse=True):
        if os.access(exe, os.X_OK):
            return str(exe)
    return None


def explicit_problem(explicit: str) -> str | None:
    """What is wrong with a Chromium path the user gave (None: it is an executable file, or a name on PATH)."""
    path = shutil.which(explicit) or explicit
    if os.path.isfile(path) and os.access(path, os.X_OK):
        return None
    return "does not exist" if not os.path.exists(path) else "is not an executable file"


def check_explicit(explicit: str | None, source: str) -> None:
    """A usage error, before anything starts, when the Chromium path given by ``source`` is unusable."""
    if explicit and (problem := explicit_problem(explicit)):
        raise UsageError(f"{source} {explicit!r} {problem}: give the path of a Chrome or Chromium executable")


def find_chromium(explicit: str | None = None) -> str | None:
    """The Chromium to use, or None when there is none. An explicit path that does not exist is an error."""
    if explicit:
        path = shutil.which(explicit) or explicit
        if explicit_problem(explicit):
            raise ChromiumNotFoundError(
                f"the configured Chromium '{explicit}' does not exist or is not executable", path=explicit
            )
        return path
    for cand in SYSTEM_CANDIDATES:
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return playwright_chromium()


def require_chromium(explicit: str | None = None) -> str | None:
    """Like find_chromium, but raise a typed error that says how to install one.

    Returns None only when Playwright's bundled browser should be used (it is installed)."""
    path = find_chromium(explicit)
    if path is None:
        raise ChromiumNotFoundError(INSTALL_HINT)
    return path


def _is_debian_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get") is not None


def ensure_chromium(explicit: str | None = None) -> str:
    """Find a Chromium, installing one if needed (apt-get as root on Debian/Ubuntu, else Playwright's)."""
    path = find_chromium(explicit)
    if path:
        return path
    if _is_debian_root():
        print("kite: installing Chromium with apt-get (one time)...", file=sys.stderr)
        apt = ["env", "DEBIAN_FRONTEND=noninteractive", "apt-get"]
        subprocess.run([*apt, "install", "-y", "-q", "chromium"], check=False)
        if not find_chromium():
            subprocess.run([*apt, "update", "-q"], check=False)
            subprocess.run([*apt, "install", "-y", "-q", "chromium"], check=False)
    else:
        subprocess.run([sys.executable, "-m", "playwright", "install", "chromium"], check=False)
    path = find_chromium()
    if not path:
        raise ChromiumNotFoundError(INSTALL_HINT)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kite_browser.agent.browser.chromium")
    parser.add_argument("--ensure", action="store_true", help="install a Chromium if none is found")
    args = parser.parse_args(argv)
    try:
        explicit = load_config().browser.chromium_path  # KITE_CHROMIUM, or the config files
        path = ensure_chromium(explicit) if args.ensure else require_chromium(explicit)
    except (ChromiumNotFoundError, ConfigError) as exc:
        print(f"kite: {exc.message}", file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
