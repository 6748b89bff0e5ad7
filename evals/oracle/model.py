"""``kite/oracle``: a deterministic ``Model`` that solves tasks it has a plan for, through the real pipeline.

* A suite task with a ``solution`` plan gets ``OracleModel(plan)`` (``evals/oracle/plan.py``).
* A MiniWoB++ task type the oracle knows is solved from the utterance and the page (``evals/oracle/miniwob.py``).

Each step it reads the structured view the loop hands every model (the observation, the history of actions,
the tool definitions) and answers with one tool call by index, or a fenced JSON block when no tools were
sent, so the reply goes through the same parsing as a real model's.
"""

from __future__ import annotations

import json

from kite_browser.agent.base.jsontypes import JsonObject
from kite_browser.agent.batch.tasks import SolutionStep
from kite_browser.agent.browser.actions import ActionModel
from kite_browser.agent.llm.chat import ChatMessage, ChatTool
from kite_browser.agent.llm.client import LLMReply
from kite_browser.agent.llm.model import ModelView
from kite_browser.agent.llm.testing import to_reply
from kite_browser.evals.oracle.decision import Decision, fail, flat
from kite_browser.evals.oracle.miniwob import solve_miniwob
from kite_browser.evals.oracle.plan import plan_action
from kite_browser.evals.oracle.view import OracleView

ORACLE = "kite/oracle"


def decide(view: OracleView, plan: list[SolutionStep] | None) -> Decision:
    if plan is not None:
        return plan_action(view, plan)
    action = solve_miniwob(view)
    if action is not None:
        return action
    return fail("no solution plan for this task and not a MiniWoB task type the oracle knows")


def to_reply_parts(actions: Decision, tools: list[ChatTool] | None) -> tuple[str | None, list[JsonObject]]:
    """(content, tool_calls): tool calls when tools were sent, else one fenced JSON block."""
    items = [flat(a) for a in ([actions] if isinstance(actions, ActionModel) else actions)]
    names = [t.get("function", {}).get("name") for t in tools or []]
    if not names:
        block = items[0] if len(items) == 1 else items
        return f"Next step.\n```json\n{json.dumps(block, ensure_ascii=False)}\n```", []
    calls: list[JsonObject] = []
    for action in items:
        name = action["action"]
        params = {k: v for k, v in action.items() if k != "action"}
        if name in names:
            calls.append({"name": name, "arguments": params})
        else:
            calls.append({"name": "browser_action", "arguments": {"action": name, "params": params}})
    return None, calls


class OracleModel:
    """The oracle for one task: ``OracleModel(plan)`` follows a solution plan; ``OracleModel()`` MiniWoB."""

    name = ORACLE

    def __init__(self, plan: list[SolutionStep] | None = None) -> None:
        self.plan = plan

    async def complete(
        self,
        messages: list[ChatMessage],
        tools: list[ChatTool] | None = None,
        *,
        view: ModelView | None = None,
    ) -> LLMReply:
        if view is None:
            raise TypeError("the oracle needs the step's view (it runs inside Kite's planner loop)")
        content, calls = to_reply_parts(decide(OracleView.of(view), self.plan), tools)
        return to_reply(content if content is not None else calls, messages, self.name)
