"""The page actions offered to tool callers, as a toolset acting through one environment.

The tools are the action registry's faces (``agent/browser/tool_face.py``: ``click``, ``type``, ``navigate``
...). ``ActionToolset`` is a ``JudgedToolset`` (``safety/toolset.py``): it says which action a call amounts to
and on which page; ``GatedToolset(ActionToolset(env), env.gate)`` is then the toolset a caller uses, each call
judged by the gate before it runs and its target looked at again right before the input lands
(``BrowserEnv.act``). ``kite mcp`` runs its page-action tools this way; ``act_gated`` runs one action a
module made (the ``browser`` module's ``act``, ``chrome_click``/``chrome_type``/``chrome_fill``) through the
same wrapper, and ``act_judged`` runs one a tool's ``judge`` planned (``playwright_browser``'s click and typing,
``aimed_at`` the element its selector found).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial

from playwright.async_api import ElementHandle

from kite_browser.agent.base.toolset import JsonObject, ToolDef
from kite_browser.agent.browser.actions import Action
from kite_browser.agent.browser.env import Acted, BrowserEnv
from kite_browser.agent.browser.observation import Observation
from kite_browser.agent.browser.tool_face import face_action, face_tools, offered
from kite_browser.agent.modules.base import ToolError
from kite_browser.safety.confirm import Confirmer
from kite_browser.safety.toolset import CallPlan, GatedToolset, OneCall, Verdict


class ActionToolset:
    """``tools``: the actions offered (default: every action with a face, by tool name)."""

    def __init__(self, env: BrowserEnv, tools: Mapping[str, ToolDef] | None = None) -> None:
        self.env = env
        self.tools = face_tools() if tools is None else tools
        self.specs = offered()

    def definitions(self) -> list[ToolDef]:
        return list(self.tools.values())

    def action(self, name: str, args: JsonObject) -> Action:
        """The action a call makes (pydantic's ValidationError for bad arguments)."""
        tool, spec = self.tools.get(name), self.specs.get(name)
        if tool is None or tool.args is None or spec is None:
            raise ToolError("unknown_tool", f"no page action is offered as {name!r}", tool=name)
        return face_action(spec, tool.args.model_validate(args))

    async def plan(self, name: str, args: JsonObject, /) -> CallPlan:
        return await self.plan_action(self.action(name, args))

    async def plan_action(self, action: Action) -> CallPlan:
        """``action`` on the page the caller saw last (a ref of an older page is a typed ``stale_element``
        now, before anyone is asked about it)."""
        env = self.env
        obs = await env.latest()
        index = action.target_index
        if index is not None and obs.element(index) is None:
            await env.snapshotter.resolve(env.ctx.page, index)
        return CallPlan(action=action, observation=obs)

    async def run(self, name: str, args: JsonObject, verdict: Verdict, /) -> Acted:
        return await act_judged(self.env, verdict)


ActionFor = Callable[[int | None], Action]
"""The action for a face's target: by its index in the observation, or (None: not listed) by its selector."""


async def aimed_at(env: BrowserEnv, handle: ElementHandle, make: ActionFor) -> tuple[Action, Observation]:
    """The action ``make`` makes for the element behind ``handle`` (a face found it by a selector), and the
    page observed now: by the element's index when the observation lists it (then the executor takes the
    second look at it), else by the selector ``make`` was given."""
    obs = await env.observe()
    return make(await env.index_of(handle)), obs


async def act_judged(env: BrowserEnv, verdict: Verdict) -> Acted:
    """The action the wrapper judged, through the env (its executor, with the gate's second look at the
    target; not judged again)."""
    action = verdict.plan.action
    if action is None:
        raise ToolError("invalid_plan", "the call was judged as no action")
    return await env.act(action, verdict.plan.observation, judged=verdict.gate, confirmer=verdict.confirmer)


async def act_gated(
    env: BrowserEnv, action: Action, observation: Observation | None, confirmer: Confirmer | None
) -> Acted:
    """``action`` through the safety wrapper: judged by the env's gate (``confirmer`` asked), then run by the
    env with the second look at its target. A refusal raises ``CallRefusedError`` (nothing ran)."""
    plan = CallPlan(action=action, observation=observation)
    gated = GatedToolset(OneCall(plan, partial(act_judged, env)), env.gate, confirmer)
    return await gated.call(action.action, {})
