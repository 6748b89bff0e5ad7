"""What one action is made of: its model's base and shared fields, and its registry entry (``ActionSpec``).

An action lives in one module of ``agent/browser/exec/``: its pydantic model (the parameters, which the LLM
tool schema is generated from), its executor unit, and one ``define_action(...)`` call that ties them to its
settle behaviour and its default safety level (Playwright MCP's ``defineTool({schema, handle, type})``).
``agent/browser/actions.py`` collects every entry; nothing else lists actions. An action offered to other
agents' tools also carries its ``ToolFace``: the MCP tool and the ``browser`` module's ``act`` kinds are
derived from it (``agent/browser/tool_face.py``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.fields import FieldInfo
from pydantic.json_schema import SkipJsonSchema

from kite_browser.agent.base.jsontypes import JsonObject, JsonValue
from kite_browser.agent.base.levels import LevelName

if TYPE_CHECKING:
    from kite_browser.agent.browser.exec.base import ExecContext, Outcome

Settle = Literal["none", "after", "early"]
"""none: no settle (read-only actions); after: mark the page, run, settle; early: the mark overlaps the
target lookup (the unit calls ``ExecContext.ready()`` right before its input events)."""
SafetyLevel = LevelName
"""The action's own level before any page check (safety's ``ConfirmLevel`` by name)."""


class ActionModel(BaseModel):
    """Base of every action model. The JSON form is ``{"action": "<name>", ...params}``."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)
    action: str

    def params(self, given_only: bool = False) -> JsonObject:
        """The action's parameters in their JSON form, without the ``action`` tag and unset fields;
        ``given_only``: only those the action was built with (the defaults it did not set left out)."""
        if given_only:
            return self.model_dump(by_alias=True, exclude_unset=True, exclude={"action"})
        data = self.model_dump(by_alias=True, exclude_none=True, exclude_defaults=False)
        data.pop("action", None)
        return data

    def to_json(self, given_only: bool = False) -> JsonObject:
        return {"action": self.action, **self.params(given_only)}

    @property
    def target_index(self) -> int | None:
        index = getattr(self, "index", None)
        return index if isinstance(index, int) else None


# A field for tool callers only is declared ``SkipJsonSchema[T] = Field(default, exclude=True)``: it is kept out
# of the model's tool schemas, the prompt's signatures, the forgiving reader and the action's JSON form.


_TOOL_ONLY_MARK: type = SkipJsonSchema  # the marker class SkipJsonSchema[...] leaves in a field's metadata


def offered_fields(model: type[BaseModel]) -> dict[str, FieldInfo]:
    """The parameters a model is offered, by their JSON name: every field but ``action`` and the tool-only ones."""
    return {
        info.alias or key: info
        for key, info in model.model_fields.items()
        if key != "action" and not any(isinstance(m, _TOOL_ONLY_MARK) for m in info.metadata)
    }


IndexField = Annotated[
    int | None, Field(ge=0, description="Element index [N] from the latest element list (preferred target).")
]
SelectorField = Annotated[
    str | None,
    Field(
        min_length=1,
        description="CSS selector, or an XPath starting with // (use only when the element has no index).",
    ),
]
XField = Annotated[float | None, Field(description="Viewport x coordinate in CSS pixels (vision mode only).")]
YField = Annotated[float | None, Field(description="Viewport y coordinate in CSS pixels (vision mode only).")]


def target_kinds(obj: object, allow_point: bool) -> list[str]:
    kinds = []
    if getattr(obj, "index", None) is not None:
        kinds.append("index")
    if getattr(obj, "selector", None) is not None:
        kinds.append("selector")
    if allow_point:
        x, y = getattr(obj, "x", None), getattr(obj, "y", None)
        if (x is None) != (y is None):
            raise ValueError("coordinates need both 'x' and 'y'")
        if x is not None:
            kinds.append("x/y")
    return kinds


class PointTarget(ActionModel):
    """An action on an element (index or selector) or a viewport point (x, y)."""

    index: IndexField = None
    selector: SelectorField = None
    x: XField = None
    y: YField = None

    @model_validator(mode="after")
    def _one_target(self) -> PointTarget:
        kinds = target_kinds(self, allow_point=True)
        if len(kinds) != 1:
            what = "none" if not kinds else " and ".join(f"'{k}'" for k in kinds)
            raise ValueError(f"give exactly one target: 'index', 'selector' or 'x'+'y' (got {what})")
        return self


class ElementTarget(ActionModel):
    """An action on one element (index or selector)."""

    index: IndexField = None
    selector: SelectorField = None

    @model_validator(mode="after")
    def _one_target(self) -> ElementTarget:
        kinds = target_kinds(self, allow_point=False)
        if len(kinds) != 1:
            what = "none" if not kinds else " and ".join(f"'{k}'" for k in kinds)
            raise ValueError(f"give exactly one target: 'index' or 'selector' (got {what})")
        return self


Unit = Callable[["ExecContext", Any], Awaitable["Outcome"]]


@dataclass(frozen=True)
class FirstCall:
    """A unit's first call into the top frame, made in the settle mark's own call right after the mark (one
    round trip fewer); the unit reads its answer with ``ExecContext.first_answer()``."""

    js: str
    """A function expression of one argument."""
    arg: JsonValue = None
    settles: bool = False
    """The call is all the action does to the page (a scroll): the settle's in-page wait for the top frame
    follows in the same call, so the action and its settle are one round trip when nothing else happens
    (no request, no navigation: ``Settler.settle`` then takes that wait as its first round's)."""
    after_js: str | None = None
    """With ``settles``: a function expression of no arguments run as the wait ends (``SettleReport.after``)."""


Capability = Literal["reads", "loads", "acts"]
"""What an action can do, as the tool faces tell their callers: ``reads`` only reads the page; ``loads``
changes the page (requests may leave) but submits, sends or deletes nothing by itself; ``acts`` can submit a
form, send data or delete something (a click can press "Delete account")."""

REF_WORDS = "Element number N from the latest snapshot's [N]."
"""A tool caller's words for an element index: it reads snapshots with refs, not the agent's element list."""


@dataclass(frozen=True)
class FaceParam:
    """One parameter as the tool faces name it. ``source``: the action's parameter (its JSON name;
    ``from.index`` reaches into a nested one); ``description``: the face's words (None: the action's; "":
    none); ``required``: an optional parameter the face requires; ``invert``: a flag offered as its
    opposite (``clear`` for ``append``)."""

    name: str
    source: str
    description: str | None = None
    required: bool = False
    invert: bool = False


REF = FaceParam("ref", "index", REF_WORDS, required=True)
"""The element an action needs, as tool callers give it."""


@dataclass(frozen=True)
class ActKind:
    """One ``kind`` of the ``browser`` module's ``act`` request (``{kind, target_id?, text?}``) that runs
    this action. ``target``: whether the request's ``target_id`` (the action's index) is needed, optional
    or unused; ``text``: the action parameter the request's ``text`` fills and ``says`` what it is;
    ``text_default``: the value when no text is given (the text is then one of the parameter's choices,
    in any case); ``fixed``: parameters this kind sets."""

    name: str
    target: Literal["needed", "optional", "unused"] = "unused"
    text: str | None = None
    says: str = ""
    text_default: str | None = None
    fixed: tuple[tuple[str, JsonValue], ...] = ()


@dataclass(frozen=True)
class ToolFace:
    """How the tool faces offer an action (Playwright MCP's ``defineTool``): the MCP tool's ``name`` and
    one-line ``description`` written for a model, its ``capability`` (the tools' hints), its parameters as
    tool callers name them (in order), and the ``browser`` module's ``act`` kinds that run it."""

    name: str
    description: str
    capability: Capability
    params: tuple[FaceParam, ...] = ()
    kinds: tuple[ActKind, ...] = field(default=())


@dataclass(frozen=True)
class ActionSpec:
    """One action's registry entry."""

    model: type[ActionModel]
    run: Unit
    """The executor unit: ``async (ExecContext, model instance) -> Outcome``; raises typed ActionErrors."""
    settle: Settle = "after"
    safety: SafetyLevel = "auto"
    rank: int = 500
    """Position in the action list the model sees (prompt catalogue, tool list): lower first."""
    says_no_effect: bool = False
    """When the action visibly changed nothing (no navigation, DOM change, focus, scroll or field change),
    its result says so ("pressed Enter: nothing changed")."""
    face: ToolFace | None = None
    """How tool callers are offered it (None: not offered; each face lists why)."""
    first_call: Callable[[Any], FirstCall | None] | None = None
    """The unit's ``FirstCall`` for an action, or None when this action makes none."""

    @property
    def name(self) -> str:
        return str(self.model.model_fields["action"].default)

    @property
    def read_only(self) -> bool:
        """Only reads the page (never changes it): no settle, nothing to confirm."""
        return self.settle == "none"


REGISTRY: dict[str, ActionSpec] = {}


def define_action(
    model: type[ActionModel],
    run: Unit,
    *,
    settle: Settle = "after",
    safety: SafetyLevel = "auto",
    rank: int = 500,
    says_no_effect: bool = False,
    face: ToolFace | None = None,
    first_call: Callable[[Any], FirstCall | None] | None = None,
) -> ActionSpec:
    """Register one action (call it at module level, next to the model and the unit)."""
    spec = ActionSpec(model, run, settle, safety, rank, says_no_effect, face, first_call)
    if not spec.name or spec.name == "None":
        raise TypeError(f"{model.__name__} needs a default for its `action` literal")
    if spec.name in REGISTRY and REGISTRY[spec.name].model is not model:
        raise ValueError(f"action {spec.name!r} is defined twice")
    REGISTRY[spec.name] = spec
    return spec
