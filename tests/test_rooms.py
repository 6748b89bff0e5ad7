"""The rooms of the house and what each may import (ARCHITECTURE.md, "Rooms"), checked on the import graph.

Every import counts, at any level of a module, also those under ``if TYPE_CHECKING:`` (a type-only import
still ties a room to one above it). A room may import its own modules, the leaves, the rooms it names and
what those may import in turn. ``make lint`` runs this file, so an import that climbs back up fails CI.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.test_imports import ROOT, graph, parse_file

pytestmark = pytest.mark.timeout(600)  # parsing every module is seconds, but minutes on a loaded machine

LEAVES = "leaves"
ROOMS: dict[str, tuple[str, ...]] = {
    # room: the modules it holds (a name or a package prefix), most specific first where they overlap
    LEAVES: (
        "agent.base",
        "agent.config",
    ),
    "protocols": ("agent.protocols",),
    "browser": ("agent.browser",),
    "llm": ("agent.llm",),
    "safety": ("safety",),
    "loop": (
        "agent",  # the package itself: the public API (Agent, load_config, the fakes), re-exported lazily
        "agent.run",
    ),
    "policies": ("agent.policies",),
    "batch": ("agent.batch",),
    "workflow": ("agent.workflow",),
    "modules": ("agent.modules",),
    "server": ("agent.server",),
    "mcp": ("agent.mcp",),
    "tui": ("agent.tui",),
    "commands": ("agent.cli", "agent.__main__", "agent.commands"),
    "evals": ("evals",),
}
MAY_IMPORT: dict[str, set[str]] = {
    LEAVES: set(),
    "protocols": set(),  # types alone: the browser's, the llm's and the gate's models (PARTS below)
    "browser": set(),
    "llm": set(),  # and the action and observation models of the browser room: PARTS below
    "safety": set(),  # the same
    "loop": {
        "protocols",
        "browser",
        "llm",
        "safety",
        "modules",
        "policies",
    },  # modules: the agent's toolset (Agent(tools=[fn]))
    "policies": set(),  # the browser's models, PastAction, the action's description and Stop: PARTS below
    "batch": {"loop", "safety", "workflow"},
    "workflow": {"loop", "safety"},
    "modules": {"browser", "safety"},
    "server": {"modules", "batch", "loop", "safety"},
    "mcp": {"modules", "browser", "safety"},
    "tui": {"loop", "safety"},
    "commands": set(ROOMS),  # everything (of evals/, only ``kite eval`` more than the bundled sites)
    "evals": set(ROOMS),  # agent and safety
}
PARTS = {
    "protocols": (
        "agent.browser.actions",
        "agent.browser.env",
        "agent.browser.observation",
        "agent.browser.timing",
        "agent.llm.chat",
        "agent.llm.client",
        "agent.llm.model",
        "safety.confirm",
    ),
    "llm": ("agent.browser.actions", "agent.browser.observation", "agent.protocols"),
    "safety": ("agent.browser.actions", "agent.browser.observation"),
    "policies": (
        "agent.browser.actions",
        "agent.browser.observation",
        "agent.browser.render",
        "agent.browser.exec.base",
        "agent.browser.exec.typing",
        "agent.llm.model",
        "agent.llm.reply_schema",
        "agent.run.memory",
        "agent.run.stop",
    ),
}
"""Single modules of another room a room may import (the browser's models)."""
ASSEMBLY = {"agent.browser.env": {"safety"}, "agent.browser.pool": {"safety"}}
"""Modules that may import more than their room: the environment assembles the safety gate with the browser,
the pool holds every browser to the domain and dialog policy."""

KNOWN: dict[tuple[str, str], str] = {
    (
        "safety.confirm",
        "agent.browser.render",
    ): "role_word of an element, for a confirmation's text",
}
"""Imports that break the table today, each with what it is waiting for. An entry that no longer occurs
fails the check too, so this list only shrinks."""


def room_of(module: str) -> str:
    best, size = "", -1
    for room, names in ROOMS.items():
        for name in names:
            if (module == name or module.startswith(name + ".")) and len(name) > size:
                best, size = room, len(name)
    assert best, f"{module} is in no room: add it to ROOMS (and to ARCHITECTURE.md)"
    return best


def allowed(room: str) -> set[str]:
    """The rooms ``room`` may import: itself, the leaves, the ones it names, and theirs."""
    seen, todo = {room, LEAVES}, [room]
    while todo:
        for other in MAY_IMPORT[todo.pop()]:
            if other not in seen:
                seen.add(other)
                todo.append(other)
    return seen


def violations() -> set[tuple[str, str]]:
    bad = set()
    for module, deps in graph(type_checking=True).items():
        room = room_of(module)
        ok = allowed(room) | ASSEMBLY.get(module, set())
        for dep in deps:
            if room_of(dep) not in ok and not dep.startswith(PARTS.get(room, ("-",))):
                bad.add((module, dep))
    return bad


def test_every_room_imports_only_what_the_table_allows() -> None:
    bad = violations() - set(KNOWN)
    assert not bad, "imports that climb the rooms (ARCHITECTURE.md, Rooms):\n" + "\n".join(
        f"  {m} ({room_of(m)}) imports {d} ({room_of(d)})" for m, d in sorted(bad)
    )


def test_known_exceptions_still_occur() -> None:
    gone = set(KNOWN) - violations()
    assert not gone, f"these imports no longer break the table; remove them from KNOWN: {sorted(gone)}"


def test_every_module_is_in_a_room() -> None:
    for module in graph():
        room_of(module)


def test_no_two_error_classes_share_a_name() -> None:
    """``except TabNotFoundError`` must catch every tab-not-found: one class per name."""
    where: dict[str, list[str]] = {}
    for pkg in ("agent", "safety", "evals"):
        for path in (ROOT / pkg).rglob("*.py"):
            for node in ast.walk(parse_file(path)):
                if isinstance(node, ast.ClassDef) and node.name.endswith(("Error", "Exception")):
                    where.setdefault(node.name, []).append(str(path.relative_to(ROOT)))
    assert not {n: p for n, p in where.items() if len(p) > 1}


def test_the_table_names_every_room_once() -> None:
    assert set(MAY_IMPORT) == set(ROOMS)
    listed = [name for names in ROOMS.values() for name in names]
    assert len(listed) == len(set(listed))
    assert Path(ROOT / "ARCHITECTURE.md").is_file()


def test_one_module_starts_playwright() -> None:
    """``async_playwright`` is called in one module (the pool's driver), by Kite, its benches and its tests:
    every other place gets a driver from it (``start_driver`` / ``playwright_driver``)."""
    callers = set()
    for pkg in ("agent", "safety", "evals", "tests"):
        for path in (ROOT / pkg).rglob("*.py"):
            for node in ast.walk(parse_file(path)):
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "async_playwright":
                    callers.add(str(path.relative_to(ROOT)))
    assert callers == {"agent/browser/driver.py"}, callers


def test_every_name_of_the_table_is_a_module() -> None:
    """A room's entry names a module or package that exists: a package moved or renamed leaves no stale row."""
    modules = set(graph())
    stale = [
        name
        for names in ROOMS.values()
        for name in names
        if not any(m == name or m.startswith(name + ".") for m in modules)
    ]
    assert not stale, f"ROOMS names modules that do not exist: {stale}"


def test_the_agent_root_holds_only_its_face() -> None:
    """Every module of ``agent/`` lives in the package of its room (``base/``, ``config/``, ``run/``, ...); the
    root keeps the Python API's face (``__init__.py``), the command line's entry and the protocols."""
    root = sorted(p.name for p in (ROOT / "agent").glob("*.py"))
    assert root == ["__init__.py", "__main__.py", "cli.py", "protocols.py"], root
