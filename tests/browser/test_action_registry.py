"""The action registry: one entry per action (model, unit, settle, default safety level), nothing listed twice."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from kite_browser.agent.browser.actions import (
    ACTION_MODELS,
    ACTION_NAMES,
    ACTION_SPECS,
    OBSERVE_ONLY,
    spec_of,
)
from kite_browser.agent.browser.exec import files


def test_every_action_has_one_entry_with_its_model_and_unit() -> None:
    assert list(ACTION_SPECS) == list(ACTION_NAMES) == list(ACTION_MODELS)
    assert ACTION_NAMES[0] == "click" and ACTION_NAMES[-1] == "done"  # the order the model reads them in
    for name, spec in ACTION_SPECS.items():
        assert spec.name == name and ACTION_MODELS[name] is spec.model and callable(spec.run)
    assert spec_of("screenshot").run is files.screenshot  # no special case in the executor
    assert OBSERVE_ONLY == {"screenshot", "wait", "getElements", "getElementDetails", "read", "done"}
    assert {n for n, s in ACTION_SPECS.items() if s.safety != "auto"} == {"executeJS", "uploadFile"}
    assert {n for n, s in ACTION_SPECS.items() if s.settle == "early"} == {
        "click",
        "hover",
        "type",
        "pressKey",
    }


ADD_ONE = textwrap.dedent(
    '''
    from typing import Literal

    from pydantic import Field

    from kite_browser.agent.browser.exec.base import Outcome
    from kite_browser.agent.browser.exec.spec import ActionModel, define_action


    class Shout(ActionModel):
        """Say something out loud."""

        action: Literal["shout"] = "shout"
        text: str = Field(description="What to say.")


    async def shout(ec, action):
        return Outcome("voice", action.text.upper())


    define_action(Shout, shout, settle="none", safety="notify")

    # Everything below only reads what that one definition registered.
    from kite_browser.agent.browser.actions import ACTION_NAMES, parse_action
    from kite_browser.agent.config import SafetyConfig
    from kite_browser.agent.llm.schemas import tool_schemas
    from kite_browser.agent.run.prompt import action_catalog
    from kite_browser.safety.policy import SafetyPolicy

    action = parse_action({"action": "shout", "text": "hi"})
    assert isinstance(action, Shout) and ACTION_NAMES[-2:] == ("shout", "done"), ACTION_NAMES
    assert any(t["function"]["name"] == "shout" for t in tool_schemas())
    assert any(a["name"] == "shout" and a["description"] == "Say something out loud." for a in action_catalog())
    decision = SafetyPolicy.from_config(SafetyConfig()).evaluate(action, None)
    assert decision.level == "notify", decision
    print("ok")
    '''
)


def test_a_new_action_is_one_definition() -> None:
    """A model, a unit and one define_action call: parsing, tool schemas, the prompt and safety follow."""
    done = subprocess.run([sys.executable, "-c", ADD_ONE], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def test_a_tabs_index_is_no_element_target() -> None:
    assert ACTION_MODELS["switchTab"](index=1).target_index is None
    assert ACTION_MODELS["click"](index=1).target_index == 1
