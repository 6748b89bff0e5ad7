"""Finding modules by name: built-ins in ``agent/modules/<name>/``, then the ``kite.modules`` entry points.

A built-in package exposes ``create_module()``; an entry point names a module object, a class or a factory
(``kite-module-foo``'s pyproject: ``[project.entry-points."kite.modules"] foo = "kite_foo:FooModule"``).
Either way ``instantiate()`` gives a fresh module object, so two registries never share state.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import pkgutil
from importlib.metadata import entry_points
from types import ModuleType
from typing import Any, Literal

from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.modules.base import ToolError

ENTRY_POINT_GROUP = "kite.modules"
Source = Literal["builtin", "entry_point", "given"]


_NOT_MODULES = ("base", "gate", "loader", "registry", "toolbox")


def known_names() -> list[str]:
    """The module names this install offers: the built-in packages and the entry points, sorted."""
    import kite_browser.agent.modules

    builtins = {m.name for m in pkgutil.iter_modules(kite_browser.agent.modules.__path__) if m.ispkg}
    points = {ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)}
    return sorted((builtins - set(_NOT_MODULES)) | points)


def check_names(names: list[str], flag: str) -> None:
    """A usage error (one line naming the known modules) when a name the user typed is no module at all.
    A known module that then fails to load is not checked here: the registry records it as a state."""
    known = known_names()
    unknown = [name for name in names if name not in known]
    if unknown:
        raise UsageError(
            f"{flag}: no module {', '.join(map(repr, unknown))}; known modules: {', '.join(known)}"
        )


def _builtin(name: str) -> ModuleType | None:
    if not name.isidentifier() or name in _NOT_MODULES:
        return None
    if importlib.util.find_spec(f"kite_browser.agent.modules.{name}") is None:
        return None
    return importlib.import_module(f"kite_browser.agent.modules.{name}")


def _entry_point(name: str) -> object | None:
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == name:
            return ep.load()
    return None


def find(name: str) -> tuple[object, Source]:
    """The object that makes module ``name`` (raises ToolError module_not_found / module_import_failed)."""
    try:
        pkg = _builtin(name)
        if pkg is not None:
            return getattr(pkg, "create_module", pkg), "builtin"
        target = _entry_point(name)
    except ToolError:
        raise
    except Exception as exc:  # an ImportError or a crash at import: the module exists but cannot load
        raise ToolError(
            "module_not_found", f"module {name!r} failed to import: {type(exc).__name__}: {exc}", module=name
        ) from exc
    if target is None:
        raise ToolError(
            "module_not_found",
            f"no module {name!r}: not a built-in (agent/modules/{name}/) and no '{ENTRY_POINT_GROUP}' "
            "entry point of that name is installed",
            module=name,
        )
    return target, "entry_point"


def instantiate(target: object) -> Any:  # a module object, checked by interface_problems
    """A module object from a module object, a class or a zero-argument factory."""
    if inspect.isclass(target):
        return target()
    if inspect.ismodule(target):
        return target  # a plain Python module with the members at top level
    if callable(target) and not hasattr(target, "execute"):
        return target()
    return target
