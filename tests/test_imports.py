"""The house's shape: the import graph of Kite's packages has no circle, and the product never imports evals/.

Static (ast): every import at any level of a module counts, except those under ``if TYPE_CHECKING:`` and a
module importing its own parent package (always initialised first).
``agent/commands/`` may use evals (``kite eval``, ``kite batch`` today, the bundled sites).
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("agent", "safety", "evals")
IMPORT_ROOT = "kite_browser"


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def parse_file(path: Path) -> ast.Module:
    """A Python file's tree (the one parse every source check of the tests uses)."""
    source = path.read_text(encoding="utf-8")
    try:
        return ast.parse(source)
    except SystemError:
        # CPython 3.11.7's ast keeps its recursion depth in state shared by all threads (gh-106905): a parse in
        # another thread of this worker at the same moment makes a correct parse here raise "AST constructor
        # recursion depth mismatch". The source is fine; parsed again it gives its tree.
        return ast.parse(source)


def _imports(path: Path, name: str, type_checking: bool = False) -> set[str]:
    tree = parse_file(path)
    skip: set[int] = set()
    for node in ast.walk(tree):
        if not type_checking and isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    [*package.split(".")[: len(package.split(".")) - node.level + 1], base]
                ).strip(".")
            found.update(f"{base}.{a.name}" for a in node.names)  # a submodule, when it is one
            found.add(base)
    # Kite's code imports its packages under the one root ``kite_browser``; the graph names them as the folders
    found = {m.removeprefix(f"{IMPORT_ROOT}.") for m in found}
    return {m for m in found if m.split(".")[0] in PACKAGES}


@cache
def graph(type_checking: bool = False) -> dict[str, set[str]]:
    """Module -> the Kite modules it imports; ``type_checking``: count imports under ``if TYPE_CHECKING:``."""
    files = {_module(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}
    edges: dict[str, set[str]] = {}
    for name, path in files.items():
        deps = {m for m in _imports(path, name, type_checking) if m in files}
        # A package's own submodules importing it (or ``from pkg import submodule``) is no circle.
        edges[name] = {m for m in deps if not (name + ".").startswith(m + ".")}
    return edges


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_circle() -> None:
    assert _cycle(graph()) is None, " -> ".join(_cycle(graph()) or [])


def test_the_product_does_not_import_evals() -> None:
    bad = {
        (name, m)
        for name, deps in graph().items()
        if name.startswith(("agent.", "safety.")) and not name.startswith("agent.commands.")
        for m in deps
        if m.startswith("evals")
    }
    assert not bad, sorted(bad)


def test_the_llm_layer_holds_no_oracle() -> None:
    assert not [p.name for p in (ROOT / "agent" / "llm").glob("*.py") if "oracle" in p.name]
