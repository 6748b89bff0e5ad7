"""Navigation a page starts on its own after a harmless click, in a real Chromium through the planner loop.

The help page's buttons look harmless; each sends the browser to a blocked domain another way: a meta
refresh it inserts, ``window.open``, a form it retargets to post into a new tab, and a ``location`` change
the page makes later, while no action runs. Every one is stopped at the network layer; the click's result
(or, for the late one, the step's record and the model's next prompt) says what was stopped and why.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kite_browser.agent.llm.model import ModelView
from kite_browser.agent.llm.testing import FunctionModel
from kite_browser.agent.run.loop import Agent

PAGE = """<!doctype html><title>Help</title>
<button id=meta onclick="const m = document.createElement('meta'); m.httpEquiv = 'refresh';
  m.content = '0;url=http://evil.example/meta'; document.head.append(m)">Show tips</button>
<button id=pop onclick="window.open('http://evil.example/pop')">Open tips</button>
<form id=f action="/help/sent" target=_blank method=post>
<button id=blank onclick="this.form.action = 'http://evil.example/post'">Send tips</button></form>
<button id=stay type=button>Stay</button>
"""
CLICKS = ["meta", "pop", "blank", "late", "stay"]


async def test_navigation_the_page_starts_is_stopped_and_said(kite_config, ctx_session, pages_server):
    url = pages_server.add("/help/tips", PAGE)
    todo = list(CLICKS)

    async def model(messages: list[dict[str, Any]], view: ModelView) -> dict[str, Any]:
        page = ctx_session.page
        if view.observation.summary.url != url:
            await page.goto(url)  # back from the error page a stopped navigation leaves
        if not todo:
            return {"action": "done", "success": True, "answer": "read"}
        element_id = todo.pop(0)
        if element_id == "late":  # the page's own timer fires while the model thinks
            async with page.expect_event("framenavigated"):  # to the error page, once the request is stopped
                await page.evaluate("setTimeout(() => { location.href = 'http://evil.example/late' }, 0)")
            await page.goto(url)
            element_id = "stay"
        return {"action": "click", "selector": "#" + element_id}

    config = kite_config(**{"agent.max_steps": 8, "safety.blocked_domains": ["evil.example"]})
    agent = Agent(config, model=FunctionModel(model), context=ctx_session)
    result = await agent.run("read the tips", start_url=url)
    assert result.stop_reason == "done", result
    steps = [json.loads(x) for x in (Path(result.run_dir or ".") / "steps.jsonl").read_text().splitlines()]
    clicks = [(s, a) for s in steps[1:] for a in s["actions"] if a["action"]["action"] == "click"]
    assert len(clicks) == len(CLICKS)
    for (step, outcome), name in zip(clicks, CLICKS, strict=True):
        said = outcome["result"]["message"]
        if name in ("meta", "pop", "blank"):
            assert said.startswith("blocked by domain policy: evil.example"), (name, outcome["result"])
        else:
            assert "blocked" not in said, (name, said)
        if name == "late":  # stopped between two actions: in the step's record and the next prompt
            assert step["blocked"] == [
                "after the last action the page tried to load http://evil.example/late on its own: blocked by "
                "the domain policy (evil.example is in blocked_domains)"
            ], step
        else:
            assert "blocked" not in step, (name, step)
    late = next(i for i, s in enumerate(steps) if "blocked" in s)
    assert "http://evil.example/late on its own" in json.dumps(steps[late + 1]["request"]), (
        "the model was not told"
    )
    hosts = {b.host for b in agent.safety.domains.blocked_log} if agent.safety.domains else set()
    assert hosts == {"evil.example"}
    assert not [t for t in await ctx_session.tabs() if "evil.example" in t.url]
