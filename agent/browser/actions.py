"""The action models: one pydantic discriminated union over the 18 browser actions plus ``done``.

These models are the single source of truth: the executor runs them, the safety policy judges them, and
the LLM tool schemas are generated from them (never written twice). Field descriptions are written for a
model to read. The JSON form of an action is ``{"action": "<name>", ...params}`` (camelCase names where
the spec uses them: ``filePath``, ``from``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

Modifier = Literal["ctrl", "alt", "shift", "meta"]
ElementKind = Literal["button", "input", "link", "select", "image", "all"]


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    def params(self) -> dict[str, Any]:
        """The action's parameters in their JSON form, without the ``action`` tag and unset fields."""
        data = self.model_dump(by_alias=True, exclude_none=True, exclude_defaults=False)
        data.pop("action", None)
        return data

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action, **self.params()}  # type: ignore[attr-defined]

    @property
    def target_index(self) -> int | None:
        return getattr(self, "index", None)


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


def _target_kinds(obj: Any, allow_point: bool) -> list[str]:
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


class _PointTarget(_Action):
    index: IndexField = None
    selector: SelectorField = None
    x: XField = None
    y: YField = None

    @model_validator(mode="after")
    def _one_target(self) -> _PointTarget:
        kinds = _target_kinds(self, allow_point=True)
        if len(kinds) != 1:
            what = "none" if not kinds else " and ".join(f"'{k}'" for k in kinds)
            raise ValueError(f"give exactly one target: 'index', 'selector' or 'x'+'y' (got {what})")
        return self


class _ElementTarget(_Action):
    index: IndexField = None
    selector: SelectorField = None

    @model_validator(mode="after")
    def _one_target(self) -> _ElementTarget:
        kinds = _target_kinds(self, allow_point=False)
        if len(kinds) != 1:
            what = "none" if not kinds else " and ".join(f"'{k}'" for k in kinds)
            raise ValueError(f"give exactly one target: 'index' or 'selector' (got {what})")
        return self


class Click(_PointTarget):
    """Click an element (by index) with a real mouse click at its visible centre."""

    action: Literal["click"] = "click"
    button: Literal["left", "right", "middle"] = Field("left", description="Mouse button.")
    double: bool = Field(False, description="Double-click instead of a single click.")


class Type(_Action):
    """Type text into an input, textarea or contenteditable (appends at the caret unless clear=true).
    Without a target, types into the focused element."""

    action: Literal["type"] = "type"
    index: IndexField = None
    selector: SelectorField = None
    text: str = Field(description="Text to type. Use <secret>name</secret> for secrets you were given.")
    clear: bool = Field(False, description="Replace the current value instead of appending.")

    @model_validator(mode="after")
    def _at_most_one_target(self) -> Type:
        kinds = _target_kinds(self, allow_point=False)
        if len(kinds) > 1:
            raise ValueError("give at most one target: 'index' or 'selector' (got 'index' and 'selector')")
        return self


class Scroll(_Action):
    """Scroll the page, or a scrollable element given by index."""

    action: Literal["scroll"] = "scroll"
    direction: Literal["up", "down", "left", "right"] = Field(description="Direction to scroll.")
    amount: int | None = Field(
        None, ge=1, le=100000, description="Pixels to scroll; default about one screen."
    )
    index: IndexField = None


class Navigate(_Action):
    """Open a URL in the current tab."""

    action: Literal["navigate"] = "navigate"
    url: str = Field(
        min_length=1, description="Absolute URL (http/https), or a path relative to the current page."
    )


class Screenshot(_Action):
    """Take a screenshot of the viewport, the full page, or one element."""

    action: Literal["screenshot"] = "screenshot"
    full_page: bool = Field(False, description="Capture the whole scrollable page.")
    index: IndexField = None


class Wait(_Action):
    """Wait a fixed time (use only when the page is visibly still loading)."""

    action: Literal["wait"] = "wait"
    ms: int = Field(ge=0, le=30000, description="Milliseconds to wait (max 30000).")


class Hover(_PointTarget):
    """Move the mouse over an element (opens hover menus and tooltips)."""

    action: Literal["hover"] = "hover"


class Select(_ElementTarget):
    """Choose an option in a dropdown (native <select> by value or visible label; custom dropdowns by text)."""

    action: Literal["select"] = "select"
    value: str | list[str] = Field(description="Option value or visible label; a list for multi-selects.")


class PressKey(_Action):
    """Press a key (Enter, Tab, Escape, ArrowDown, a letter ...) with optional modifiers, on the focused element."""

    action: Literal["pressKey"] = "pressKey"
    key: str = Field(
        min_length=1, description="Key name as in KeyboardEvent.key: Enter, Tab, Escape, ArrowDown, a ..."
    )
    modifiers: list[Modifier] = Field(default_factory=list, description="Modifier keys held while pressing.")


class GoBack(_Action):
    """Go back in the tab's history."""

    action: Literal["goBack"] = "goBack"


class GoForward(_Action):
    """Go forward in the tab's history."""

    action: Literal["goForward"] = "goForward"


class Refresh(_Action):
    """Reload the current page."""

    action: Literal["refresh"] = "refresh"


class DragPoint(BaseModel):
    """One end of a drag: an element index or viewport coordinates."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    index: int | None = Field(None, ge=0, description="Element index.")
    x: float | None = Field(None, description="Viewport x.")
    y: float | None = Field(None, description="Viewport y.")

    @model_validator(mode="before")
    @classmethod
    def _from_int(cls, data: Any) -> Any:
        if isinstance(data, int) and not isinstance(data, bool):
            return {"index": data}
        if isinstance(data, list | tuple) and len(data) == 2:
            return {"x": data[0], "y": data[1]}
        return data

    @model_validator(mode="after")
    def _one(self) -> DragPoint:
        kinds = _target_kinds(self, allow_point=True)
        if len(kinds) != 1:
            raise ValueError("a drag end is either an 'index' or 'x'+'y'")
        return self


class DragDrop(_Action):
    """Drag from one element or point to another (HTML5 drag-and-drop, sliders, sortable lists)."""

    action: Literal["dragDrop"] = "dragDrop"
    from_: DragPoint = Field(alias="from", description="Where the drag starts: {index} or {x, y}.")
    to: DragPoint = Field(description="Where it ends: {index} or {x, y}.")


class UploadFile(_ElementTarget):
    """Put a local file into a file input (only from folders the user allowed)."""

    action: Literal["uploadFile"] = "uploadFile"
    file_path: str = Field(alias="filePath", min_length=1, description="Path of the file to upload.")


class SwitchTab(_Action):
    """Make another tab the active one, by its index in the tab list or a substring of its URL."""

    action: Literal["switchTab"] = "switchTab"
    index: int | None = Field(None, ge=0, description="Tab index from the summary's tab list.")
    url: str | None = Field(None, min_length=1, description="Substring of the tab's URL.")

    @model_validator(mode="after")
    def _one(self) -> SwitchTab:
        if (self.index is None) == (self.url is None):
            raise ValueError("give exactly one of 'index' or 'url'")
        return self


class ExecuteJS(_Action):
    """Run JavaScript in the page and return its (JSON-safe) result. Always asks the user first."""

    action: Literal["executeJS"] = "executeJS"
    code: str = Field(
        min_length=1, description="A JS expression or function body; `return` a value to get it back."
    )


class GetElements(_Action):
    """List interactive elements: by kind, and including those outside the viewport with visible=false."""

    action: Literal["getElements"] = "getElements"
    type: ElementKind = Field("all", description="Kind of element to list.")
    visible: bool = Field(True, description="true: only elements in the viewport; false: the whole page.")


class GetElementDetails(_Action):
    """All attributes, a CSS selector, XPath, parent text and position of the given elements."""

    action: Literal["getElementDetails"] = "getElementDetails"
    indices: list[int] = Field(min_length=1, max_length=50, description="Element indexes.")


class Done(_Action):
    """Finish the task: report success or failure and the answer the user asked for."""

    action: Literal["done"] = "done"
    success: bool = Field(description="Whether the task was accomplished.")
    answer: str = Field("", description="The result or answer for the user (what you found, what you did).")


Action = Annotated[
    Click
    | Type
    | Scroll
    | Navigate
    | Screenshot
    | Wait
    | Hover
    | Select
    | PressKey
    | GoBack
    | GoForward
    | Refresh
    | DragDrop
    | UploadFile
    | SwitchTab
    | ExecuteJS
    | GetElements
    | GetElementDetails
    | Done,
    Field(discriminator="action"),
]

ACTION_MODELS: dict[str, type[_Action]] = {
    m.model_fields["action"].default: m  # type: ignore[misc]
    for m in (
        Click,
        Type,
        Scroll,
        Navigate,
        Screenshot,
        Wait,
        Hover,
        Select,
        PressKey,
        GoBack,
        GoForward,
        Refresh,
        DragDrop,
        UploadFile,
        SwitchTab,
        ExecuteJS,
        GetElements,
        GetElementDetails,
        Done,
    )
}
ACTION_NAMES: tuple[str, ...] = tuple(ACTION_MODELS)
# Actions that only read the page; they never change it.
OBSERVE_ONLY: frozenset[str] = frozenset({"screenshot", "wait", "getElements", "getElementDetails", "done"})

_ADAPTER: TypeAdapter[Any] = TypeAdapter(Action)


def parse_action(data: dict[str, Any]) -> Action:
    """Validate one action in its flat JSON form ``{"action": name, ...params}`` (raises pydantic ValidationError)."""
    return _ADAPTER.validate_python(data)
