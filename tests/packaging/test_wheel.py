"""The built wheel installs one top-level import name of Kite's own, beside the PyPI projects that own the
folder names Kite's repository uses (pyup's ``safety``, OpenAI's ``evals``), and uninstalling either side
leaves the other working.

Slow (builds the wheel, makes a venv, installs from the package index as ``make test`` itself does). The new
venv borrows Kite's dependencies from the running venv through a path entry placed after its own
site-packages, so only the three projects under test (and the few modules ``import evals`` needs) go into it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

# one xdist worker runs both tests: the module-scoped wheel (an isolated build env from the index, then the
# build) is made once, not once per worker
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900), pytest.mark.xdist_group("wheel")]

ROOT = Path(__file__).resolve().parents[2]
# OpenAI's evals imports these at import time but Kite's venv does not have them
EVALS_IMPORT_NEEDS = ["blobfile", "lz4", "zstandard", "backoff"]


def _run(*cmd: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, f"{cmd}:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    return proc


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", out, ROOT)
    (built,) = out.glob("kite_browser_agent-*.whl")
    return built


def test_the_wheel_holds_one_top_level_name(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert tops == {"kite_browser", wheel.name.split("-")[0] + "-" + wheel.name.split("-")[1] + ".dist-info"}
    assert "kite_browser/agent/run/loop.py" in names and "kite_browser/safety/policy.py" in names
    assert "kite_browser/agent/_resources/prompts/system.j2" in names
    assert "kite_browser/agent/_resources/config/default.yaml" in names


def test_kite_and_pypis_safety_and_evals_live_side_by_side(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    # the running venv's pip (made current by `make test`) installs into the new one (--python): Python's bundled
    # pip is slower to choose versions
    _run(sys.executable, "-m", "venv", "--without-pip", venv)
    py, bindir = venv / "bin" / "python", venv / "bin"
    own = Path(_run(py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip())
    (own / "zz_kite_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    into = (sys.executable, "-m", "pip", "--python", py)
    pip = (*into, "install", "-q", "--disable-pip-version-check")
    _run(*pip, "--no-deps", "--force-reinstall", wheel)
    _run(*pip, "safety", *EVALS_IMPORT_NEEDS)
    _run(*pip, "--no-deps", "evals")
    env = {**os.environ, "OPENAI_API_KEY": "sk-not-used", "PATH": f"{bindir}:{os.environ['PATH']}"}
    env.pop("PYTHONPATH", None)
    cwd_free = ("-I",)  # isolated: the checkout's folders (agent/, safety/, evals/) are not on the path

    def kite_works() -> None:
        assert "Kite: an autonomous browser agent" in _run(bindir / "kite", "--help", env=env).stdout
        probe = "import kite_browser, kite_browser.safety.policy as p; from kite_browser import Agent; print(p.__file__)"
        assert str(own / "kite_browser") in _run(py, *cwd_free, "-c", probe, env=env).stdout

    def safety_works() -> None:
        assert _run(bindir / "safety", "--version", env=env).stdout.strip()
        probe = "import safety, evals; print(safety.__file__); print(evals.__file__)"
        lines = _run(py, *cwd_free, "-c", probe, env=env).stdout.split()
        assert lines == [str(own / "safety" / "__init__.py"), str(own / "evals" / "__init__.py")]

    kite_works()
    safety_works()
    _run(*into, "uninstall", "-y", "-q", "safety")
    kite_works()
    _run(*pip, "--no-deps", "safety")
    _run(*into, "uninstall", "-y", "-q", "kite-browser-agent")
    safety_works()
    assert not (own / "kite_browser").exists()
