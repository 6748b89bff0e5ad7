"""getElements, getElementDetails and done: read-only actions."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, JsonValue, WithJsonSchema

from kite_browser.agent.base.errors import ActionError
from kite_browser.agent.browser.exec.base import ExecContext, Outcome, SnapshotterLike
from kite_browser.agent.browser.exec.spec import ActionModel, define_action
from kite_browser.agent.browser.exec.targets import describe_element
from kite_browser.agent.browser.observation import Element, Observation

ElementKind = Literal["button", "input", "link", "select", "image", "all"]


class GetElements(ActionModel):
    """List interactive elements: by kind, and including those outside the viewport with visible=false."""

    action: Literal["getElements"] = "getElements"
    type: ElementKind = Field("all", description="Kind of element to list.")
    visible: bool = Field(True, description="true: only elements in the viewport; false: the whole page.")


class GetElementDetails(ActionModel):
    """All attributes, a CSS selector, XPath, parent text and position of the given elements."""

    action: Literal["getElementDetails"] = "getElementDetails"
    indices: list[int] = Field(min_length=1, max_length=50, description="Element indexes.")


class Done(ActionModel):
    """Finish the task: report success or failure and the answer the user asked for (and data, when the
    prompt gives an output schema)."""

    action: Literal["done"] = "done"
    success: bool = Field(description="Whether the task was accomplished.")
    answer: str = Field("", description="The result or answer for the user (what you found, what you did).")
    data: Annotated[JsonValue, WithJsonSchema({})] = Field(  # any JSON: the schema says no more than that
        None, description="The structured answer (JSON), when the task gives an output schema it must match."
    )


_KIND = {"button": "button", "input": "input", "link": "link", "select": "select", "image": "image"}


def _plain_render(obs: Observation, elements: list[Element]) -> str:
    lines = [describe_element(el) + ("" if el.in_viewport else " (offscreen)") for el in elements]
    return "\n".join(lines) or "(no elements)"


def _render(obs: Observation, elements: list[Element], include_offscreen: bool, kind: str) -> str:
    try:
        from kite_browser.agent.browser.render import (
            render_observation,
        )  # built concurrently; optional until it lands
    except ImportError:
        return _plain_render(obs, elements)
    return str(render_observation(obs, include_offscreen=include_offscreen, kind=kind, with_summary=False))


def _need_snapshotter(ec: ExecContext) -> SnapshotterLike:
    if ec.snapshotter is None:
        raise ActionError("element listing needs a snapshotter")
    return ec.snapshotter


async def get_elements(ec: ExecContext, action: GetElements) -> Outcome:
    snap = _need_snapshotter(ec)
    obs = await snap.snapshot(ec.page, include_all=not action.visible)
    els = [
        el
        for el in obs.elements
        if (action.type == "all" or el.kind == _KIND[action.type]) and (el.in_viewport or not action.visible)
    ]
    text = _render(obs, els, include_offscreen=not action.visible, kind=action.type)
    where = "in view" if action.visible else "on the page"
    return Outcome(
        "snapshot",
        f"{len(els)} {action.type if action.type != 'all' else 'interactive'} elements {where}",
        data={"text": text, "elements": [el.model_dump(exclude_defaults=True) for el in els]},
    )


async def get_element_details(ec: ExecContext, action: GetElementDetails) -> Outcome:
    snap = _need_snapshotter(ec)
    details = await snap.details(ec.page, list(action.indices))
    items = list(details.values()) if isinstance(details, dict) else list(details)
    try:
        from kite_browser.agent.browser.render import render_details

        text = str(render_details(details))
    except ImportError:
        text = "\n".join(str(d.model_dump(exclude_defaults=True)) for d in items)
    return Outcome(
        "details",
        f"details of {len(items)} element(s)",
        data={"text": text, "elements": [d.model_dump(exclude_defaults=True) for d in items]},
    )


async def done(ec: ExecContext, action: Done) -> Outcome:
    return Outcome(
        None,
        action.answer or ("task done" if action.success else "task failed"),
        data={"success": action.success, "answer": action.answer}
        | ({"data": action.data} if action.data is not None else {}),
    )


define_action(GetElements, get_elements, settle="none", rank=170)
define_action(GetElementDetails, get_element_details, settle="none", rank=180)
define_action(Done, done, settle="none", rank=1000)
