"""The action registry: every action's model, executor unit, settle behaviour and default safety level.

An action is defined in one module of ``agent/browser/exec/`` (its model, its unit and one
``define_action(...)`` call, see ``agent/browser/exec/spec.py``); this module imports them all and builds
the one pydantic discriminated union over them. These models are the single source of truth: the executor
runs them, the safety policy judges them, and the LLM tool schemas are generated from them (never written
twice). The JSON form of an action is ``{"action": "<name>", ...params}`` (camelCase names where the spec
uses them: ``filePath``, ``from``).

Adding an action = adding one module to ``agent/browser/exec/`` (plus its test); nothing here changes.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, TypeAlias, Union

from pydantic import Field, TypeAdapter

import kite_browser.agent.browser.exec as _exec_pkg
from kite_browser.agent.browser.exec.files import Screenshot, UploadFile
from kite_browser.agent.browser.exec.human import AskHuman
from kite_browser.agent.browser.exec.js import ExecuteJS
from kite_browser.agent.browser.exec.navigation import GoBack, GoForward, Navigate, Refresh, Wait
from kite_browser.agent.browser.exec.observe import Done, ElementKind, GetElementDetails, GetElements
from kite_browser.agent.browser.exec.pointer import Click, DragDrop, DragPoint, Hover
from kite_browser.agent.browser.exec.scroll import Scroll
from kite_browser.agent.browser.exec.select import Select
from kite_browser.agent.browser.exec.spec import (
    REGISTRY,
    ActionModel,
    ActionSpec,
    SafetyLevel,
    Settle,
    offered_fields,
)
from kite_browser.agent.browser.exec.tabs import SwitchTab
from kite_browser.agent.browser.exec.typing import KEY_NAMES, Modifier, PressKey, Type

__all__ = [
    "ACTION_MODELS",
    "ACTION_NAMES",
    "ACTION_SPECS",
    "KEY_NAMES",
    "OBSERVE_ONLY",
    "Action",
    "ActionModel",
    "ActionSpec",
    "AskHuman",
    "Click",
    "Done",
    "DragDrop",
    "DragPoint",
    "ElementKind",
    "ExecuteJS",
    "GetElementDetails",
    "GetElements",
    "GoBack",
    "GoForward",
    "Hover",
    "Modifier",
    "Navigate",
    "PressKey",
    "Refresh",
    "SafetyLevel",
    "Screenshot",
    "Scroll",
    "Select",
    "Settle",
    "SwitchTab",
    "Type",
    "UploadFile",
    "Wait",
    "offered_fields",
    "parse_action",
    "spec_of",
]


def _load_all() -> dict[str, ActionSpec]:
    """Import every module of agent/browser/exec/ (each registers its actions), in the model's menu order."""
    for info in pkgutil.iter_modules(_exec_pkg.__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"{_exec_pkg.__name__}.{info.name}")
    return dict(sorted(REGISTRY.items(), key=lambda item: (item[1].rank, item[0])))


ACTION_SPECS: dict[str, ActionSpec] = _load_all()
ACTION_MODELS: dict[str, type[ActionModel]] = {name: spec.model for name, spec in ACTION_SPECS.items()}
ACTION_NAMES: tuple[str, ...] = tuple(ACTION_MODELS)
OBSERVE_ONLY: frozenset[str] = frozenset(n for n, s in ACTION_SPECS.items() if s.read_only)
"""Actions that only read the page; they never change it."""

if TYPE_CHECKING:
    # For the type checker an action is its base model; narrow with isinstance (the union is built at
    # run time from the registry, so that adding an action never means editing a list here).
    Action: TypeAlias = ActionModel
else:
    Action = Annotated[Union[tuple(ACTION_MODELS.values())], Field(discriminator="action")]  # noqa: UP007

_ADAPTER: TypeAdapter[Action] = TypeAdapter(Action)


def parse_action(data: Mapping[str, object]) -> Action:
    """Validate one action in its flat JSON form ``{"action": name, ...params}`` (raises pydantic ValidationError)."""
    return _ADAPTER.validate_python(data)


def spec_of(action: ActionModel | str) -> ActionSpec:
    """The registry entry of an action (instance or name); KeyError for an unknown name."""
    return ACTION_SPECS[action if isinstance(action, str) else action.action]
