"""Split the flat ``agent/`` root into the packages of the rooms ARCHITECTURE.md's table names (issue 49, item 6).

    leaves  agent/errors.py, resources.py, events.py, ... -> agent/base/
            agent/config.py, config_*.py                  -> agent/config/ (config.py becomes its __init__.py, so
                                                              ``kite_browser.agent.config`` keeps its import path)
    loop    agent/loop.py, run_env.py, memory.py, ...     -> agent/run/ (run_env.py becomes run/env.py)
    stays   agent/__init__.py, __main__.py, cli.py, protocols.py

Run it from the checkout root with the project's Python, on a clean tree::

    /work/main/.venv/bin/python tools/move_rooms.py            # move, rewrite, regenerate docs, ruff --fix
    /work/main/.venv/bin/python tools/move_rooms.py --dry-run  # say what would change, touch nothing
    /work/main/.venv/bin/python tools/move_rooms.py --place litellm_env=base.litellm_env   # a new root module

It is re-runnable: a file already moved is left where it is, and the rewriting of references runs every time,
so after merging branches that still import ``kite_browser.agent.loop`` (or patch ``"kite_browser.agent.loop.X"``)
a second run on the merged tree rewrites what they brought. What it rewrites, in every tracked text file of
agent/ safety/ evals/ tests/ docs/ kite_browser/ .ci/ and README.md ARCHITECTURE.md DESIGN.md pyproject.toml Makefile:

- dotted names ``kite_browser.agent.<old>`` (imports, ``import_module`` strings, monkeypatch targets, logger
  names, docs) and ``from kite_browser.agent import <old module>`` (split off into its own import);
- the room table of tests/test_rooms.py (``"agent.<old>"`` strings; the ROOMS entries collapsed to one
  package prefix each);
- paths ``agent/<old>.py`` (and ``agent/config*.py``), and a bare ``<old>.py`` continuing a list that began with
  an ``agent/`` root path on the same line ("agent/loop.py, protocols.py" -> "agent/run/loop.py,
  agent/protocols.py"; a name stays bare while it stays in the same folder as the one before it);
- ``agent/base/resources.py`` finds the package folder one level further up;
- ARCHITECTURE.md's rooms table rows of the leaves and the loop name their packages, and a paragraph there
  says what the agent root keeps.

Then it regenerates docs/reference/ (``kite_browser.evals.docs_gen``), sorts imports and formats the Python
files it changed (ruff), and lists what it could not place: a module in the agent root it has no room for (give
it ``--place``), and any reference to an old name left after the rewrite.

Not handled (none occur today; the final listing of old names does not see them, ruff, mypy and the tests do):
a module name built at run time (``f"kite_browser.agent.{name}"``), an import in parentheses with comments
inside, a moved module reached as an attribute of the package (``import kite_browser.agent as a; a.loop``), a
bare file name in prose with no ``agent/`` path before it on its line (it is still the file's right name), and
files outside the repository (/work/shared/DESIGN.md names agent/config.py and agent/loop.py).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
AGENT = ROOT / "agent"

BASE = [
    "errors",
    "resources",
    "events",
    "result",
    "levels",
    "cancel",
    "fence",
    "jsonschema",
    "httpserve",
    "toolset",
    "telemetry",
]
RUN = [
    "loop",
    "step_prompt",
    "memory",
    "prompt",
    "record",
    "step_record",
    "output",
    "model_setup",
    "stop",
    "guards",
    "refusals",
    "outcome",
    "totals",
    "tool_calls",
]
MOVES: dict[str, str] = {
    **{name: f"base.{name}" for name in BASE},
    **{name: f"run.{name}" for name in RUN},
    "run_env": "run.env",
    "config": "config",  # agent/config.py -> agent/config/__init__.py: the import path stays
    "config_modules": "config.modules",
    "config_sections": "config.sections",
    "config_server": "config.server",
}
"""Old module in the agent root -> its new dotted name under ``kite_browser.agent``."""
STAYS = {"__init__", "__main__", "cli", "protocols"}
PACKAGES = {
    "base": '"""The leaves of the house: typed errors, run events and results, the levels, the fence, the toolset\n'
    "protocol, telemetry, finding prompts/ and config/ (ARCHITECTURE.md, Rooms). Each imports nothing of Kite.\n"
    '"""\n',
    "run": '"""The planner loop\'s room: ``Agent`` and the step (``loop.py``), the run\'s environment, memory, prompts,\n'
    'the record, the stops and guards, the outcome (ARCHITECTURE.md, Rooms)."""\n',
}
"""New packages and their ``__init__.py`` (a docstring alone: importing one submodule loads nothing else)."""

SCOPE = ("agent", "safety", "evals", "tests", "docs", "kite_browser", ".ci", "tools")
TOP_FILES = ("README.md", "ARCHITECTURE.md", "DESIGN.md", "pyproject.toml", "Makefile")
TEXT_SUFFIXES = {".py", ".md", ".toml", ".yaml", ".yml", ".txt", ".cfg", ".ini", ".j2", ".json", ""}
SELF = Path(__file__).resolve()
ROOMS_TESTS = ("tests/test_rooms.py", "tests/test_imports.py")


def scope() -> list[str]:
    """The folders and top files to rewrite that this checkout has."""
    return [name for name in (*SCOPE, *TOP_FILES) if (ROOT / name).exists()]


def git(*args: str, check: bool = True) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=check, capture_output=True, text=True).stdout


def new_path(old: str) -> str:
    """``agent/<old>.py``'s new path as docs name it (the config package by its folder)."""
    new = MOVES[old]
    if new == "config":
        return "agent/config/"
    return "agent/" + new.replace(".", "/") + ".py"


def new_file(old: str) -> Path:
    new = MOVES[old]
    if new == "config":
        return AGENT / "config" / "__init__.py"
    return AGENT / (new.replace(".", "/") + ".py")


# --- moving the files ---------------------------------------------------------------------------------------


def move_files(dry: bool) -> list[str]:
    done = []
    for pkg, init in PACKAGES.items():
        path = AGENT / pkg / "__init__.py"
        if not path.exists():
            done.append(f"create {path.relative_to(ROOT)}")
            if not dry:
                path.parent.mkdir(exist_ok=True)
                path.write_text(init, encoding="utf-8")
                git("add", str(path))
    for old in MOVES:
        src, dst = AGENT / f"{old}.py", new_file(old)
        if src.exists() and dst.exists():
            sys.exit(
                f"both {src.relative_to(ROOT)} and {dst.relative_to(ROOT)} exist: merge them by hand, then run again"
            )
        if src.exists():
            done.append(f"git mv {src.relative_to(ROOT)} {dst.relative_to(ROOT)}")
            if not dry:
                dst.parent.mkdir(exist_ok=True)
                git("mv", str(src), str(dst))
    return done


def unplaced() -> list[str]:
    return sorted(p.stem for p in AGENT.glob("*.py") if p.stem not in STAYS and p.stem not in MOVES)


# --- rewriting references -----------------------------------------------------------------------------------


def _alternation(names: list[str]) -> str:
    return "|".join(sorted((re.escape(n) for n in names), key=len, reverse=True))


def rewrite_dotted(text: str) -> str:
    olds = [o for o in MOVES if MOVES[o] != o]
    dotted = re.compile(rf"(?<![\w.])kite_browser\.agent\.({_alternation(olds)})(?!\w)")
    text = dotted.sub(lambda m: f"kite_browser.agent.{MOVES[m.group(1)]}", text)
    return FROM_AGENT.sub(_split_from_agent, text)


FROM_AGENT = re.compile(
    r"^(?P<indent>[ \t]*)from kite_browser\.agent import (?:(?P<names>[\w, ]+?)|\((?P<block>[\w,\s]+)\))[ \t]*$",
    re.M,
)
"""``from kite_browser.agent import a, b`` on one line, or in parentheses over several (without comments)."""


def _split_from_agent(m: re.Match[str]) -> str:
    """``from kite_browser.agent import Agent, telemetry`` -> the moved modules imported from their package."""
    indent, listed = m.group("indent"), m.group("names") or m.group("block")
    names = [n.strip() for n in listed.split(",") if n.strip()]
    keep, lines = [], []
    for item in names:
        name, _, alias = item.partition(" as ")
        name, alias = name.strip(), alias.strip()
        if name in MOVES and MOVES[name] != name:
            pkg, _, leaf = MOVES[name].rpartition(".")
            bound = alias or name
            suffix = f" as {bound}" if bound != leaf else ""
            lines.append(f"{indent}from kite_browser.agent.{pkg} import {leaf}{suffix}")
        else:
            keep.append(item)
    if not lines:
        return m.group(0)
    if keep:
        lines.insert(0, f"{indent}from kite_browser.agent import {', '.join(keep)}")
    return "\n".join(lines)


def rewrite_rooms_table(text: str) -> str:
    """tests/test_rooms.py and test_imports.py name modules without the import root: ``"agent.loop"``."""
    olds = [o for o in MOVES if MOVES[o] != o]
    quoted = re.compile(rf"(?<=[\"'])agent\.({_alternation(olds)})(?=[\"'.])")
    text = quoted.sub(lambda m: f"agent.{MOVES[m.group(1)]}", text)
    return _collapse_rooms(text)


def _collapse_rooms(text: str) -> str:
    """In the ROOMS dict, ``"agent.run.loop", "agent.run.memory", ...`` -> one ``"agent.run"`` per room."""
    start = text.find("ROOMS: dict")
    end = text.find("\n}\n", start)
    if start < 0 or end < 0:
        return text
    block, seen, out = text[start:end], set(), []
    entry = re.compile(r"^(\s*)\"agent\.(base|run|config)(?:\.\w+)?\",(\s*#.*)?$")
    for line in block.split("\n"):
        m = entry.match(line)
        if not m:
            out.append(line)
            continue
        if m.group(2) in seen:
            if m.group(3):
                print(f"note: dropped the comment of a collapsed ROOMS entry: {line.strip()}")
            continue
        seen.add(m.group(2))
        out.append(f'{m.group(1)}"agent.{m.group(2)}",{m.group(3) or ""}')
    return text[:start] + "\n".join(out) + text[end:]


PATH_TOKEN = re.compile(r"(?<![\w.\-])(?P<dir>(?:kite_browser/)?(?:[\w.\-]+/)*)(?P<name>[\w*]+)\.py\b")


def rewrite_paths(text: str) -> str:
    return "\n".join(_rewrite_path_line(line) for line in text.split("\n"))


def _old_of(name: str) -> str | None:
    if name == "config*":
        return "config"
    return name if name in MOVES else None


def _rewrite_path_line(line: str) -> str:
    """Paths of one line, in order. A bare name continues the folder of the path before it ("agent/loop.py,
    memory.py"): one that continued the agent root is given its new folder, and stays bare while that folder
    is the one named just before it."""
    if ".py" not in line:
        return line
    out, pos = [], 0
    old_dir: str | None = None  # the folder the line's last path named, as written before the move
    new_dir: str | None = None  # the same after it
    for m in PATH_TOKEN.finditer(line):
        d, name = m.group("dir"), m.group("name")
        prefix = "kite_browser/" if d.startswith("kite_browser/") else ""
        if d:
            old_dir = new_dir = d.removeprefix("kite_browser/").rstrip("/")
        if old_dir != "agent":
            continue
        old = _old_of(name)
        if old is None:
            if d or new_dir == "agent" or not (AGENT / f"{name}.py").exists():
                continue
            target, t_dir = (
                f"{prefix}agent/{name}.py",
                "agent",
            )  # a root file after a moved one: its folder named
        else:
            target = prefix + new_path(old)
            t_dir = target.removeprefix(prefix).rstrip("/")
            t_dir = t_dir if target.endswith("/") else t_dir.rpartition("/")[0]
        replacement = target.rpartition("/")[2] if not d and t_dir == new_dir else target
        new_dir = t_dir
        out.append(line[pos : m.start()])
        out.append(replacement or target)
        pos = m.end()
    out.append(line[pos:])
    return "".join(out)


# --- ARCHITECTURE.md's table rows and resources.py ----------------------------------------------------------


def architecture_rows(text: str) -> str:
    """The leaves' and the loop's rows of the rooms table name their packages first."""
    text = re.sub(
        r"^\| leaves \| `agent/base/errors\.py`, `agent/config/`, `agent/base/resources\.py`, ",
        "| leaves | `agent/base/`: `errors.py`, `resources.py`, ",
        text,
        flags=re.M,
    )
    m = re.search(
        r"^\| leaves \| `agent/base/`:(?P<cell>[^|]*?)(?P<tail> \| nothing of Kite)", text, flags=re.M
    )
    if m and "agent/config/" not in m.group("cell"):
        cell = m.group("cell") + "; `agent/config/` (the one loader and its sections)"
        text = text[: m.start("cell")] + cell + text[m.end("cell") :]
    text = re.sub(r"^\| loop \| `agent/run/loop\.py`", "| loop | `agent/run/`: `loop.py`", text, flags=re.M)
    if ROOT_NOTE.split(";")[0] not in text:
        anchor = re.search(r"^`tests/test_rooms\.py` checks this table.*\n", text, flags=re.M)
        if anchor:
            text = text[: anchor.end()] + ROOT_NOTE + text[anchor.end() :]
        else:
            print(
                "note: ARCHITECTURE.md has no line '`tests/test_rooms.py` checks this table': add ROOT_NOTE by hand"
            )
    return text


ROOT_NOTE = (
    "The agent root holds only the package's face (`agent/__init__.py`: the Python API's names), `__main__.py`,\n"
    "`cli.py` and `protocols.py`; every other module lives in the package of its room: the leaves in `agent/base/`\n"
    "and `agent/config/`, the loop in `agent/run/`.\n"
)
"""A paragraph under the rooms' heading, saying where the root's modules went."""


def fix_resources(dry: bool) -> list[str]:
    path = AGENT / "base" / "resources.py"
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    old = "_PKG = Path(__file__).resolve().parent\n"
    if old in text:
        if not dry:
            path.write_text(
                text.replace(old, "_PKG = Path(__file__).resolve().parents[1]  # agent/, above base/\n"),
                encoding="utf-8",
            )
        return [f"{path.relative_to(ROOT)}: _PKG one folder up"]
    return []


# --- driving it ---------------------------------------------------------------------------------------------


def text_files() -> list[Path]:
    listed = git("ls-files", "-z", "--", *scope()).split("\0")
    files = []
    for rel in filter(None, listed):
        path = ROOT / rel
        if path.resolve() == SELF or path.is_symlink() or not path.is_file():
            continue
        if path.suffix in TEXT_SUFFIXES and "/static/" not in rel and "/pages/" not in rel:
            files.append(path)
    return files


def rewrite_all(dry: bool) -> list[str]:
    changed = []
    for path in text_files():
        rel = path.relative_to(ROOT).as_posix()
        try:
            before = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        after = rewrite_paths(rewrite_dotted(before))
        if rel in ROOMS_TESTS:
            after = rewrite_rooms_table(after)
        if rel == "ARCHITECTURE.md":
            after = architecture_rows(after)
        if after != before:
            changed.append(rel)
            if not dry:
                path.write_text(after, encoding="utf-8")
    return changed


def leftovers() -> list[str]:
    olds = [o for o in MOVES if MOVES[o] != o]
    pattern = rf"kite_browser\.agent\.({'|'.join(olds)})\b|(^|[^\w./-])agent/({'|'.join(olds)}|config)\.py"
    found = git("grep", "-nE", pattern, "--", *scope(), ":!tools/move_rooms.py", check=False)
    return found.splitlines()


def finish(changed_py: list[str]) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-m", "kite_browser.evals.docs_gen"], cwd=ROOT, env=env, check=True)
    if changed_py:
        ruff = [sys.executable, "-m", "ruff"]
        subprocess.run(
            [*ruff, "check", "--select", "I", "--fix", "-q", *changed_py], cwd=ROOT, env=env, check=False
        )
        subprocess.run([*ruff, "format", "-q", *changed_py], cwd=ROOT, env=env, check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dry-run", action="store_true", help="say what would change, touch nothing")
    parser.add_argument(
        "--place",
        action="append",
        default=[],
        metavar="OLD=NEW",
        help="also move agent/OLD.py to the dotted NEW (e.g. litellm_env=base.litellm_env); repeatable",
    )
    parser.add_argument("--allow-dirty", action="store_true", help="run on a tree with uncommitted changes")
    args = parser.parse_args()
    for item in args.place:
        old, _, new = item.partition("=")
        if not old or not new.startswith(("base.", "run.", "config.")):
            parser.error(f"--place {item!r}: OLD=NEW with NEW under base., run. or config.")
        MOVES[old] = new
    if (
        not args.allow_dirty
        and not args.dry_run
        and git("status", "--porcelain", "--untracked-files=no").strip()
    ):
        sys.exit("the tree has uncommitted changes: commit or stash them (or --allow-dirty)")

    for line in move_files(args.dry_run):
        print(line)
    changed = rewrite_all(args.dry_run)
    notes = fix_resources(args.dry_run)
    print(f"rewrote references in {len(changed)} files")
    for line in notes:
        print(line)
    if args.dry_run:
        print("\n".join(f"  {c}" for c in changed))
        return
    git("add", "-A", "--", *scope())
    finish([c for c in changed if c.endswith(".py")] + ["agent/base/resources.py"] * bool(notes))
    git("add", "-A", "--", *scope())
    rest = unplaced()
    if rest:
        print(
            f"NOT PLACED (still in the agent root; run again with --place NAME=base.NAME or run.NAME): {rest}"
        )
    left = leftovers()
    if left:
        print("old names still referenced (not rewritten: check by hand):")
        print("\n".join(f"  {line}" for line in left))
    root = sorted(p.name for p in AGENT.glob("*.py"))
    print(f"agent root now holds {len(root)} .py files: {', '.join(root)}")


if __name__ == "__main__":
    main()
