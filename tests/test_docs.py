"""The documentation stays true to the code: README.md, docs/ and ARCHITECTURE.md.

``make lint`` runs this file (beside tests/test_rooms.py). It fails when a generated reference table of
docs/reference/ differs from what the code gives now (and says the command that regenerates it), when a
documented command would not parse as written, when a link points nowhere, when ARCHITECTURE.md names a type
the code lacks, or when README.md stops being a front door (over 200 lines, or a commit hash in it).
"""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import shlex
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
ARCHITECTURE = ROOT / "ARCHITECTURE.md"
DOCS = [README, ARCHITECTURE, *sorted((ROOT / "docs").rglob("*.md"))]
PY = sys.executable

pytestmark = pytest.mark.timeout(300)  # the generator imports most of Kite: seconds, more on a loaded machine


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


# --- generated tables ------------------------------------------------------------------------------------


def test_the_generated_reference_matches_the_code():
    from kite_browser.evals.docs_gen import COMMAND, stale

    old = stale()
    assert not old, f"stale generated docs: {', '.join(old)}; regenerate them with: {COMMAND}"


# --- README as a front door --------------------------------------------------------------------------------

HASH = re.compile(r"\b[0-9a-f]{7,12}\b")
REAL_IDENTIFIERS: set[str] = set()
"""Hex-looking words in README.md that are not commits (none today)."""


def test_the_readme_is_a_front_door():
    text = README.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines (at most 200: details go in docs/)"
    hashes = sorted({m.group(0) for m in HASH.finditer(text)} - REAL_IDENTIFIERS)
    assert not hashes, f"README.md names commits {hashes}: history goes in git, figures in docs/benchmarks.md"


# --- documented commands -----------------------------------------------------------------------------------


def sh_blocks(path: Path) -> list[str]:
    """The lines of the ``sh`` blocks of a Markdown file, backslash continuations joined."""
    text = path.read_text(encoding="utf-8")
    lines: list[str] = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        lines += block.replace("\\\n", "").splitlines()
    return lines


def benchmark_commands() -> list[str]:
    """The commands of docs/benchmarks.md's command column (each code span that starts a command)."""
    out = []
    for line in (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8").splitlines()[2:]:
        cells = line.split(" | ")
        if len(cells) > 1:
            out += [
                c for c in re.findall(r"`([^`]+)`", cells[1]) if c.split()[0] in ("kite", "python", "make")
            ]
    return out


def commands() -> list[tuple[str, list[str]]]:
    """Every ``kite``, ``python -m`` and ``make`` command the docs show: (where, argv)."""
    found = []
    for path in DOCS:
        for line in sh_blocks(path):
            if not line.split() or line.split()[0] not in ("kite", "python", "make"):
                continue  # other shell lines (curl, echo, a variable)
            argv = shlex.split(line, comments=True)
            if argv and argv[-1] == "&":
                argv = argv[:-1]
            found.append((rel(path), argv))
    found += [("docs/benchmarks.md", shlex.split(c)) for c in benchmark_commands()]
    return found


COMMANDS = commands()


def test_the_docs_show_the_commands_a_newcomer_needs():
    shown = {" ".join(argv[:2]) for _, argv in COMMANDS}
    assert {
        "make demo",
        "make test",
        "kite run",
        "kite tui",
        "kite batch",
        "kite eval",
        "kite replay",
    } <= shown
    assert any(argv[:2] == ["python", "-m"] for _, argv in COMMANDS)


@cache
def make_targets() -> set[str]:
    return set(re.findall(r"^([a-z][a-z-]*):", (ROOT / "Makefile").read_text(encoding="utf-8"), re.M))


def check_command(argv: list[str]) -> str | None:
    """Why ``argv`` would not run as written (None: it parses)."""
    if argv[0] == "make":
        missing = [t for t in argv[1:] if "=" not in t and t not in make_targets()]
        return f"no make target {missing}" if missing else None
    if argv[0] == "python":
        if argv[1] != "-m" or not argv[2].startswith("kite_browser."):
            return "Kite's modules run as 'python -m kite_browser.…'"
        return None if importlib.util.find_spec(argv[2]) else f"no module {argv[2]}"
    from kite_browser.agent.cli import build_parser

    try:
        build_parser().parse_args(argv[1:])
    except SystemExit as exc:
        return None if exc.code == 0 else f"kite exits {exc.code} on it (a usage error)"
    return None


@pytest.mark.parametrize(("where", "argv"), COMMANDS, ids=[" ".join(a)[:60] for _, a in COMMANDS])
def test_each_documented_command_parses_as_written(where: str, argv: list[str]):
    problem = check_command(argv)
    assert problem is None, f"{where}: {shlex.join(argv)}: {problem}"


def test_a_command_kite_cannot_parse_is_found():
    assert check_command(["kite", "run", "a task", "--no-such-flag"]) is not None
    assert check_command(["python", "-m", "evals.bench.snapshot"]) is not None
    assert check_command(["make", "no-such-target"]) is not None


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_readme_commands_parse_in_a_fresh_clone(tmp_path: Path):
    """A clone of the committed tree, no install: its own parser takes every README command as written, and
    its ``python -m`` modules are found under the import root the clone's links make."""
    clone = tmp_path / "kite"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, timeout=300)
    argvs = [argv for where, argv in COMMANDS if where == "README.md"]
    script = (
        "import json, sys, importlib.util\n"
        "from kite_browser.agent.cli import build_parser\n"
        "out = []\n"
        "for argv in json.loads(sys.argv[1]):\n"
        "    if argv[0] == 'python':\n"
        "        out.append(bool(importlib.util.find_spec(argv[2])))\n"
        "        continue\n"
        "    if argv[0] != 'kite':\n"
        "        continue\n"
        "    try:\n"
        "        build_parser().parse_args(argv[1:]); out.append(True)\n"
        "    except SystemExit as exc:\n"
        "        out.append(exc.code == 0)\n"
        "print(json.dumps([__import__('kite_browser').__file__, out]))\n"
    )
    run = subprocess.run(
        [PY, "-c", script, json.dumps(argvs)],
        cwd=clone,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(clone), "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    where, ok = json.loads(run.stdout.strip().splitlines()[-1])
    assert where.startswith(str(clone)), where
    runnable = [a for a in argvs if a[0] in ("kite", "python")]
    assert len(ok) == len(runnable), (ok, runnable)
    assert all(ok), [shlex.join(a) for a, good in zip(runnable, ok, strict=True) if not good]


# --- import names ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["agent", "safety", "evals"])
def test_a_bare_package_name_is_refused_with_the_name_to_use(name: str):
    run = subprocess.run(
        [PY, "-c", f"import {name}"], cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert run.returncode != 0
    assert "ImportError" in run.stderr and f"kite_browser.{name}" in run.stderr, run.stderr


def test_the_docs_import_kite_by_its_import_root():
    bare = re.compile(r"(python -m (agent|safety|evals)\b)|(^\s*(from|import) (agent|safety|evals)\b)", re.M)
    for path in DOCS:
        found = [m.group(0).strip() for m in bare.finditer(path.read_text(encoding="utf-8"))]
        assert not found, f"{rel(path)} uses bare names {found}: use kite_browser.…"


# --- links and names ---------------------------------------------------------------------------------------


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    return {slug(h) for h in re.findall(r"^#+ (.*)$", text, re.M)}


def test_every_relative_link_reaches_a_file_and_its_heading():
    bad = []
    for path in DOCS:
        text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            dest = (path.parent / file).resolve() if file else path
            if not dest.exists():
                bad.append(f"{rel(path)}: {target} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                bad.append(f"{rel(path)}: {target} (no such heading)")
    assert not bad, bad


@cache
def kite_types() -> set[str]:
    """Every class and module-level type alias defined in agent/, safety/ and evals/."""
    names: set[str] = set()
    for room in ("agent", "safety", "evals"):
        for path in (ROOT / room).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef):
                    names.add(node.name)
                elif isinstance(node, ast.Assign | ast.AnnAssign):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


NOT_KITE_TYPES = {"FastAPI", "AbstractToolset"}
"""Types ARCHITECTURE.md names that belong to other projects."""


def test_architecture_names_only_types_the_code_has():
    text = ARCHITECTURE.read_text(encoding="utf-8")
    named = set(re.findall(r"`([A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)*)`", text))
    missing = sorted(named - kite_types() - NOT_KITE_TYPES)
    assert not missing, f"ARCHITECTURE.md names types the code lacks: {missing}"
