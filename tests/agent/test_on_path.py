"""A newcomer's first commands: the README's set-up block (``make demo``, ``make test``), then ``make install``
and ``kite --help`` from a shell whose PATH has no ``.venv``. ``make install`` links ``kite`` into BINDIR (here a temporary folder, never the real
``~/.local/bin``); ``make demo``'s last line says where ``kite`` is and how to put it on PATH. The venv is the
one the tests run in (``-o`` tells make not to rebuild it)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VENV = Path(sys.executable).parent.parent
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


def make(
    *args: str, path: str = SYSTEM_PATH, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    venv_env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "MAKEFLAGS", "MFLAGS")}
    return subprocess.run(
        ["make", "--no-print-directory", "-o", f"{VENV}/.kite-installed", f"VENV={VENV}", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**venv_env, "PATH": path, **(env or {})},
        timeout=280,  # make, Chromium's check and a kite start, on a machine that may be busy
    )


def first_commands() -> list[str]:
    """The commands of the README's first ``sh`` block, comments stripped."""
    block = re.search(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S)
    assert block, "the README has no sh block"
    return [line.split("#")[0].strip() for line in block.group(1).splitlines() if line.split("#")[0].strip()]


def test_the_readme_sets_up_with_make_demo_and_make_test_and_names_make_install():
    assert first_commands() == ["make demo", "make test"]
    assert "`make install`" in (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.timeout(300)  # make, then a kite process, on a machine that may be busy
def test_make_install_puts_kite_on_path(tmp_path: Path):
    bindir = tmp_path / "bin"
    out = make("install", f"BINDIR={bindir}")
    assert out.returncode == 0, out.stderr
    assert (bindir / "kite").resolve() == (VENV / "bin" / "kite").resolve()
    assert "is not on your PATH" in out.stdout and f'export PATH="{bindir}:$PATH"' in out.stdout, out.stdout

    path = f"{bindir}:{SYSTEM_PATH}"
    assert shutil.which("kite", path=path) == str(bindir / "kite")
    shell = subprocess.run(
        ["sh", "-c", "kite --help"], capture_output=True, text=True, env={"PATH": path, "HOME": str(tmp_path)},
        timeout=120,
    )  # fmt: skip
    assert shell.returncode == 0, shell.stderr
    assert shell.stdout.startswith("usage: kite") and "run" in shell.stdout

    again = make("install", f"BINDIR={bindir}", path=path)  # idempotent; now it is on PATH
    assert again.returncode == 0 and "try: kite --help" in again.stdout, again


@pytest.mark.timeout(300)
def test_make_demo_ends_by_saying_how_to_reach_kite(tmp_path: Path):
    # a model nobody can call: the demo stops at once (a usage error), and the last line is still the hint
    out = make("demo", env={"KITE_MODEL": "nosuch/model", "KITE_HOME": str(tmp_path / "home")})
    assert out.returncode != 0
    last = out.stdout.strip().splitlines()[-1]
    assert f"{VENV}/bin/kite" in last and "make install" in last and "activate" in last, out
