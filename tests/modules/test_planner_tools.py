"""Module tools in the planner loop: ``agent.module_tools`` and ``Agent(config, tools=[fn])``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kite_browser.agent import Agent, FunctionModel
from kite_browser.agent.config import KiteConfig
from kite_browser.agent.llm.model import ModelView
from kite_browser.agent.modules.functions import tool

SEEN: list[str] = []


@tool(read_only=True)
def word_count(text: str, unique: bool = False) -> int:
    """Count the words of a text."""
    words = text.split()
    return len(set(words) if unique else words)


def remember(note: str) -> str:
    """Store a note (not declared read-only: it asks first)."""
    SEEN.append(note)
    return "stored"


async def test_module_and_user_tools_are_offered_called_gated_and_recorded(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        if view.step == 1:
            return [
                {"name": "word_count", "arguments": {"text": "a b a", "unique": True}},
                {"name": "remember", "arguments": {"note": "secret plan"}},
                {"name": "chrome_list_tabs", "arguments": {"browserId": "browser-x"}},
                {"name": "word_count", "arguments": {"text": 5}},
            ]
        return {"action": "done", "success": True, "answer": "counted"}

    model = FunctionModel(fn)
    config = kite_config(
        **{"llm.model": "", "modules": ["chrome"], "agent.module_tools": ["chrome_list_tabs"]}
    )
    agent = Agent(config, model=model, context=ctx_session, tools=[word_count, remember])
    result = await agent.run("Count the words", start_url=sites.url("/shop/"))
    assert result.success and result.answer == "counted", result
    offered = {t["function"]["name"]: t for t in model.views[0].tools or []}
    assert {"word_count", "remember", "chrome_list_tabs", "browser_action"} <= set(
        offered
    )  # llm.tools: single
    assert "chrome_launch" not in offered  # only the listed module tools
    assert offered["word_count"]["function"]["parameters"]["required"] == ["text"]
    told = "\n".join(str(m["content"]) for m in model.messages[1])
    assert 'word_count({"text": "a b a", "unique": true}) → ok: {"result": 2}' in told
    assert "remember" in told and "declined" in told and SEEN == []  # confirm level, batch confirmer says no
    assert "browser_not_found" in told and "invalid_arguments" in told
    steps = [json.loads(line) for line in (Path(result.run_dir) / "steps.jsonl").read_text().splitlines()]
    tools = next(s["tools"] for s in steps if s.get("tools"))
    assert [t["tool"] for t in tools] == ["word_count", "remember", "chrome_list_tabs", "word_count"]
    assert tools[0]["result"] == {"result": 2} and tools[1]["result"]["error"] == "declined"
