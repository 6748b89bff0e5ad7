"""One tool vocabulary: the MCP server's action tools and the ``browser`` module's ``act`` kinds are derived from
the action registry (each action's ``ToolFace``), so every action is offered by each face or listed, with the
reason, as not offered; an action defined with a face is offered everywhere."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import Field, ValidationError

from kite_browser.agent.browser.actions import (
    ACTION_SPECS,
    Click,
    DragDrop,
    PressKey,
    Scroll,
    Type,
    UploadFile,
)
from kite_browser.agent.browser.exec.spec import REF, ActionSpec, ElementTarget
from kite_browser.agent.browser.tool_face import (
    HINTS,
    ActKind,
    FaceParam,
    ToolFace,
    act_kinds,
    face_action,
    face_model,
    face_tool,
    kind_action,
    offered,
)
from kite_browser.agent.mcp import tools as mcp
from kite_browser.agent.modules.base import ToolError
from kite_browser.agent.modules.browser import module as browser
from kite_browser.agent.modules.chrome import module as chrome


def _check_face(offered_actions: set[str], not_offered: dict[str, str]) -> None:
    assert not offered_actions & set(not_offered), offered_actions & set(not_offered)
    missing = set(ACTION_SPECS) - offered_actions - set(not_offered)
    assert not missing, f"actions neither offered nor listed as not offered (with the reason): {missing}"
    assert set(not_offered) <= set(ACTION_SPECS), set(not_offered) - set(ACTION_SPECS)
    assert all(len(reason) > 10 for reason in not_offered.values())


def test_every_action_is_offered_by_the_mcp_server_or_listed_with_the_reason() -> None:
    derived = {spec.name for spec in mcp.ACTIONS.values()}
    _check_face(derived, mcp.NOT_OFFERED)
    assert set(mcp.ACTIONS) <= set(mcp.TOOLS)
    for name, spec in mcp.ACTIONS.items():  # the tool's name, words and hints are the action's face
        tool = mcp.TOOLS[name]
        assert spec.face is not None and spec.face.name == name
        assert tool.description == spec.face.description
        assert tool.hints == HINTS[spec.face.capability]


def test_every_action_is_offered_by_the_browser_modules_act_or_listed_with_the_reason() -> None:
    _check_face({spec.name for spec, _ in browser.KINDS.values()}, browser.NOT_OFFERED)
    enum = browser.ActRequest.model_json_schema()["properties"]["kind"]["enum"]
    assert set(enum) == {"click", "type", "fill", "hover", "press", "scroll", "evaluate", "select"}


def test_every_action_is_run_by_a_chrome_tool_or_listed_with_the_reason() -> None:
    """The chrome tools keep the seed's parameters; which actions they run is listed, and kept whole."""
    _check_face(set(chrome.RUNS), chrome.NOT_OFFERED)
    names = {t.name for t in chrome.ChromeModule().tools()}
    assert {tool for tools in chrome.RUNS.values() for tool in tools} <= names


class Zoom(ElementTarget):
    """An action that is not in the registry: what a new action module would define."""

    action: Literal["zoom"] = "zoom"
    level: int = Field(100, ge=10, le=500, description="Zoom level in percent.")


async def _unit(ctx: object, action: object) -> object:
    raise AssertionError("not run here")


ZOOM = ActionSpec(
    Zoom,
    _unit,  # type: ignore[arg-type]
    face=ToolFace(
        "zoom",
        "Zoom element [ref].",
        "loads",
        (REF, FaceParam("level", "level")),
        (ActKind("zoom", target="needed", text="level", says="the level"),),
    ),
)


def test_an_action_defined_with_a_face_is_offered_by_every_face() -> None:
    specs = {"zoom": ZOOM}
    assert offered(specs) == {"zoom": ZOOM} and set(act_kinds(specs)) == {"zoom"}
    tool = mcp.mcp_tool(face_tool(ZOOM))
    assert (tool.name, tool.description) == ("zoom", "Zoom element [ref].")
    assert tool.annotations is not None and tool.annotations.destructive_hint is False  # "loads"
    props = tool.input_schema["properties"]
    assert tool.input_schema["required"] == ["ref"]
    assert props["ref"]["minimum"] == 0 and props["ref"]["description"] == REF.description
    assert (props["level"]["minimum"], props["level"]["maximum"], props["level"]["default"]) == (10, 500, 100)
    args = face_model(ZOOM).model_validate({"ref": 3, "level": 150})
    assert face_action(ZOOM, args) == Zoom(index=3, level=150)
    with pytest.raises(ValidationError):
        face_model(ZOOM).model_validate({"ref": 3, "level": 5})  # the action's bounds hold for the tool
    spec, kind = act_kinds(specs)["zoom"]
    assert kind_action(spec, kind, 4, "200") == Zoom(index=4, level=200)


def _mcp(name: str, args: dict[str, object]) -> object:
    tool = mcp.TOOLS[name]
    assert tool.args is not None
    return face_action(mcp.ACTIONS[name], tool.args.model_validate(args))


def test_mcp_arguments_make_the_actions_the_hand_written_tools_made() -> None:
    assert _mcp("click", {"ref": 3, "button": "right", "double": True}) == Click(
        index=3, mouse_button="right", double=True
    )
    assert _mcp("type", {"ref": 2, "text": "x", "clear": False}) == Type(index=2, text="x", append=True)
    assert _mcp("type", {"text": "x"}) == Type(text="x")  # the focused field, its value replaced
    assert _mcp("drag", {"from_ref": 1, "to_ref": 2}) == DragDrop.model_validate(
        {"from": {"index": 1}, "to": {"index": 2}}
    )
    assert _mcp("upload_file", {"ref": 4, "path": "/tmp/a.txt"}) == UploadFile(
        index=4, file_path="/tmp/a.txt"
    )
    assert _mcp("press_key", {"key": "Enter", "modifiers": ["ctrl"]}) == PressKey(
        key="Enter", modifiers=["ctrl"]
    )
    assert _mcp("scroll", {"direction": "up"}) == Scroll(direction="up")
    for name, bad in (("click", {"ref": -1}), ("click", {"ref": 1, "index": 1}), ("click", {})):
        with pytest.raises(ValidationError):
            mcp.TOOLS[name].args.model_validate(bad)  # type: ignore[union-attr]


def test_act_kinds_make_the_actions_the_hand_written_module_made() -> None:
    def act(kind: str, target: str | None = None, text: str | None = None) -> object:
        return browser.to_action(browser.ActRequest(kind=kind, target_id=target, text=text))

    assert act("type", "2", "hi") == Type(index=2, text="hi", append=True)  # "type" appends
    assert act("fill", "2", "hi") == Type(index=2, text="hi")  # "fill" replaces
    assert act("scroll", text=" UP ") == Scroll(direction="up") and act("scroll", "5") == Scroll(
        direction="down", index=5
    )
    assert act("press", "7", "Enter") == PressKey(key="Enter")  # a key goes to the focused element
    with pytest.raises(ToolError) as err:
        act("scroll", text="sideways")
    assert err.value.error == "invalid_arguments" and "up, down, left, right" in err.value.message
    with pytest.raises(ValidationError, match="needs a target_id"):
        browser.ActRequest(kind="click")
    with pytest.raises(ValidationError, match="needs text"):
        browser.ActRequest(kind="evaluate")
