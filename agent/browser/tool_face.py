"""The tool faces' view of the action registry: what other agents' tools offer of each action.

An action offered to tool callers carries a ``ToolFace`` (``agent/browser/exec/spec.py``): its MCP tool name and
one-line description, what it can do, its parameters as tool callers name them, and the ``browser`` module's
``act`` kinds that run it. From these and the action's own fields (types, bounds, defaults) this module builds
each tool's definition (a ``ToolDef`` with its pydantic argument model) and turns a call's arguments into the
action, so the MCP server's action tools (``agent/mcp/tools.py``) and the ``browser`` module's ``act`` kinds
are derived, never written again: an action defined with a face is offered by every face.
"""

from __future__ import annotations

import copy
import functools
import types
from typing import Annotated, Any, Literal, Union, cast, get_args, get_origin

from pydantic import BaseModel, Field, create_model
from pydantic.fields import FieldInfo

from kite_browser.agent.base.toolset import ACTS, LOADS, READS, JsonObject, ToolArgs, ToolDef, ToolHints
from kite_browser.agent.browser.actions import ACTION_SPECS, ActionModel, ActionSpec
from kite_browser.agent.browser.exec.spec import ActKind, Capability, FaceParam, ToolFace

__all__ = [
    "HINTS",
    "ActKind",
    "FaceParam",
    "ToolFace",
    "act_kinds",
    "args_schema",
    "face_action",
    "face_model",
    "face_tool",
    "face_tools",
    "kind_action",
    "offered",
    "source_field",
]


HINTS: dict[Capability, ToolHints] = {"reads": READS, "loads": LOADS, "acts": ACTS}
"""The tool hints of each capability an action's face declares."""


def offered(specs: dict[str, ActionSpec] = ACTION_SPECS) -> dict[str, ActionSpec]:
    """The actions tool callers are offered, by their face name, in the model's menu order."""
    return {spec.face.name: spec for spec in specs.values() if spec.face is not None}


def act_kinds(specs: dict[str, ActionSpec] = ACTION_SPECS) -> dict[str, tuple[ActionSpec, ActKind]]:
    """The ``browser`` module's ``act`` kinds, each with the action it runs."""
    return {kind.name: (spec, kind) for spec in specs.values() if spec.face for kind in spec.face.kinds}


def source_field(model: type[BaseModel], source: str) -> FieldInfo:
    """The field a face parameter stands for: its JSON name; ``from.index`` reaches into a nested model."""
    head, _, rest = source.partition(".")
    info = next((i for k, i in model.model_fields.items() if (i.alias or k) == head), None)
    if info is None:
        raise KeyError(f"{model.__name__} has no parameter {head!r}")
    if not rest:
        return info
    inner = [t for t in (get_args(info.annotation) or (info.annotation,)) if _is_model(t)]
    if not inner:
        raise KeyError(f"{model.__name__}.{head} is not a model with parameters")
    return source_field(inner[0], rest)


def _is_model(t: object) -> bool:
    return isinstance(t, type) and issubclass(t, BaseModel)


def _not_none(annotation: object) -> object:
    """``int | None`` -> ``int`` (a parameter the face requires)."""
    if get_origin(annotation) not in (Union, types.UnionType):
        return annotation
    rest = tuple(a for a in get_args(annotation) if a is not type(None))
    return rest[0] if len(rest) == 1 else Union[rest]  # noqa: UP007 (built at run time)


def _field(param: FaceParam, info: FieldInfo) -> tuple[Any, Any]:  # pydantic's (annotation, FieldInfo) pair
    description = info.description if param.description is None else (param.description or None)
    annotation: Any = _not_none(info.annotation) if param.required else info.annotation
    if info.metadata:  # the action's bounds (ge, min_length ...) hold for the face too
        annotation = Annotated[(annotation, *info.metadata)]
    if param.required:
        return annotation, Field(description=description)
    if param.invert:
        return annotation, Field(not info.default, description=description)
    if info.default_factory is not None:
        return annotation, Field(default_factory=info.default_factory, description=description)
    return annotation, Field(info.default, description=description)


def face_model(spec: ActionSpec) -> type[ToolArgs]:
    """The argument model of an action's tool: the face's parameters, typed and bounded as the action's."""
    face = _face(spec)
    fields: dict[str, Any] = {p.name: _field(p, source_field(spec.model, p.source)) for p in face.params}
    name = "".join(part.capitalize() for part in face.name.split("_")) + "Args"
    return create_model(name, __base__=ToolArgs, **fields)


def face_action(spec: ActionSpec, args: BaseModel) -> ActionModel:
    """The action a tool call's arguments make (pydantic's ValidationError when they make none)."""
    data: dict[str, object] = {"action": spec.name}
    for param in _face(spec).params:
        value = getattr(args, param.name)
        if param.invert:
            value = not value
        if value is not None:
            _put(data, param.source, value)
    return spec.model.model_validate(data)


def kind_action(spec: ActionSpec, kind: ActKind, index: int | None, text: str | None) -> ActionModel:
    """The action an ``act`` request of ``kind`` makes; ValueError for a text that is not one of the
    parameter's choices (pydantic's ValidationError for other bad values)."""
    data: dict[str, object] = {"action": spec.name, **dict(kind.fixed)}
    if kind.target != "unused" and index is not None:
        data["index"] = index
    if kind.text is not None:
        value = text
        if kind.text_default is not None:
            value = (text or "").strip().lower() or kind.text_default
            choices = _choices(source_field(spec.model, kind.text).annotation)
            if choices and value not in choices:
                raise ValueError(f"{kind.name} text must be {', '.join(choices)}, not {text!r}")
        if value is not None:
            data[kind.text] = value
    return spec.model.model_validate(data)


def _choices(annotation: object) -> list[str]:
    return [str(a) for a in get_args(annotation)] if get_origin(annotation) is Literal else []


def _put(data: dict[str, object], source: str, value: object) -> None:
    *path, last = source.split(".")
    for key in path:
        data = cast("dict[str, object]", data.setdefault(key, {}))  # a dotted source names nested objects
    data[last] = value


def _face(spec: ActionSpec) -> ToolFace:
    if spec.face is None:
        raise ValueError(f"action {spec.name!r} is not offered to tool callers (it has no face)")
    return spec.face


def args_schema(model: type[BaseModel]) -> JsonObject:
    """A tool's argument model as the JSON schema sent to tool callers (no titles), a fresh copy."""
    return copy.deepcopy(_args_schema(model))


@functools.cache
def _args_schema(model: type[BaseModel]) -> JsonObject:
    """Made once per model (pydantic takes milliseconds per model, on the event loop)."""
    schema: JsonObject = model.model_json_schema()
    schema.pop("title", None)
    properties = schema.get("properties")
    for prop in properties.values() if isinstance(properties, dict) else ():
        if isinstance(prop, dict):
            prop.pop("title", None)
    return schema


def face_tool(spec: ActionSpec, output: type[BaseModel] | None = None) -> ToolDef:
    """An action offered as a tool: its definition, with its argument model (``output``: the model of its
    structured result, for a face that has one)."""
    face, args = _face(spec), face_model(spec)
    hints = HINTS[face.capability]
    return ToolDef(face.name, face.description, args_schema(args), hints, args=args, output=output)


@functools.cache
def face_tools() -> dict[str, ToolDef]:
    """The registry's actions offered as tools, by tool name, in the model's menu order (made once)."""
    return {name: face_tool(spec) for name, spec in offered().items()}
