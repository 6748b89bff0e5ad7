"""A target that changes between the snapshot and the click, in a real Chromium through the planner loop.

The checkout page shows harmless buttons when Kite looks ("Continue", "Next", "Proceed", "Details"); then,
as a hostile page would, it relabels one on mouseover, points one's form at /checkout/pay on mousedown,
relabels one while the model thinks (a timer), and slides a "Pay now" button under the pointer on mouseover.
Each click is judged again on the live element right before the input lands: batch mode refuses every one,
nothing is paid, and each refusal says why. An honest button on the same page is clicked with no question.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from kite_browser.agent.base.result import RunResult
from kite_browser.agent.browser.exec import guard
from kite_browser.agent.browser.exec.cdp import mouse_event
from kite_browser.agent.browser.exec.targets import Target, on_target
from kite_browser.agent.llm.model import ModelView
from kite_browser.agent.llm.testing import FunctionModel
from kite_browser.agent.run.loop import Agent
from kite_browser.safety.confirm import BatchConfirmer

PAGE = """<!doctype html><meta charset=utf-8><title>Review</title><h1>Review</h1>
<script>window.log = [];</script>
<form action="/checkout/shipping" onsubmit="event.preventDefault();
  const b = event.submitter; log.push('submit ' + (b.getAttribute('formaction') || this.getAttribute('action'))
  + ' ' + b.textContent)">
<button id=hover onmouseover="this.textContent = 'Pay now'">Continue</button>
<button id=down onmousedown="this.setAttribute('formaction', '/checkout/pay')">Next</button>
<button id=timer>Proceed</button>
</form>
<div style="position:relative;margin:8px 0">
<button id=under type=button onclick="log.push('details')"
  onmouseover="document.getElementById('payover').style.display = 'block'">Details</button>
<button id=payover type=button onclick="log.push('PAID')"
  style="display:none;position:absolute;inset:0">Pay now</button>
</div>
<button id=plain type=button onclick="log.push('summary')">Show summary</button>
"""
ORDER = ["hover", "down", "timer", "under", "plain"]


def steps_of(run_dir: str | None) -> list[dict[str, Any]]:
    lines = (Path(run_dir or ".") / "steps.jsonl").read_text().splitlines()
    return [json.loads(x) for x in lines]


async def click_hover_then_plain(
    kite_config: Any, ctx_session: Any, url: str, *, by_point: bool
) -> tuple[RunResult, list[dict[str, Any]]]:
    """A run whose model clicks #hover, then #plain (by the centre of each, or by index), then says done: the
    result and the recorded clicks."""
    todo = ["hover", "plain"]

    async def model(messages: list[dict[str, Any]], view: ModelView) -> dict[str, Any]:
        if not todo:
            return {"action": "done", "success": True, "answer": "clicked"}
        element_id = todo.pop(0)
        el = next(e for e in view.observation.elements if e.attrs.get("id") == element_id)
        if by_point:
            return {
                "action": "click",
                "x": el.rect.x + el.rect.width / 2,
                "y": el.rect.y + el.rect.height / 2,
            }
        return {"action": "click", "index": el.index}

    config = kite_config(**{"agent.max_steps": 4, "agent.max_failures": 4})
    agent = Agent(config, model=FunctionModel(model), confirmer=BatchConfirmer(), context=ctx_session)
    result = await agent.run("continue", start_url=url)
    clicks = [
        a for s in steps_of(result.run_dir)[1:] for a in s["actions"] if a["action"]["action"] == "click"
    ]
    return result, clicks


async def test_a_target_changed_after_the_snapshot_is_judged_again(kite_config, ctx_session, pages_server):
    todo = list(ORDER)

    async def model(messages: list[dict[str, Any]], view: ModelView) -> dict[str, Any]:
        if not todo:
            return {"action": "done", "success": True, "answer": "clicked"}
        element_id = todo.pop(0)
        if element_id == "timer":  # the page relabels it while the model thinks
            await ctx_session.page.evaluate("document.getElementById('timer').textContent = 'Pay now'")
        by_id = {e.attrs.get("id"): e for e in view.observation.elements}
        if element_id == "down":  # by selector: the live element is found without the snapshot's index
            return {"action": "click", "selector": "#down"}
        return {"action": "click", "index": by_id[element_id].index}

    confirmer = BatchConfirmer()
    config = kite_config(**{"agent.max_steps": 8, "agent.max_failures": 8})
    result = await Agent(config, model=FunctionModel(model), confirmer=confirmer, context=ctx_session).run(
        "continue to the next step", start_url=pages_server.add("/checkout/review", PAGE)
    )
    log = await ctx_session.page.evaluate("window.log")
    assert result.stop_reason == "done", result
    assert log == ["summary"], log  # nothing paid, nothing submitted; the honest button worked
    outcomes = [
        a for s in steps_of(result.run_dir)[1:] for a in s["actions"] if a["action"]["action"] == "click"
    ]
    assert len(outcomes) == len(ORDER)
    for element_id, outcome in zip(ORDER, outcomes, strict=True):
        assert outcome["decision"]["level"] == "auto", (element_id, outcome)  # the snapshot looked harmless
        error = outcome["result"].get("error") or {}
        if element_id == "plain":
            assert outcome["result"]["ok"], outcome
            continue
        assert error.get("error") == "target_changed", (element_id, outcome["result"])
    messages = {
        i: o["result"]["error"]["message"] for i, o in zip(ORDER, outcomes, strict=True) if i != "plain"
    }
    assert "'Pay now'" in messages["hover"] and "not confirmed" in messages["hover"], messages
    assert "/checkout/pay" in messages["down"], messages
    assert "'Pay now'" in messages["timer"], messages
    assert "covered" in messages["under"] and "Pay now" in messages["under"], messages
    asked = [r.element.attrs.get("id") for r, _ in confirmer.asked if r.element is not None]
    assert asked == ["hover", "down", "timer"], asked  # asked once each with the fresh label; never for plain


async def test_an_ordinary_click_is_not_slowed_or_asked(kite_config, ctx_session, pages_server):
    """The second look costs a few round trips, not a question: a page that changes nothing clicks as before."""
    url = pages_server.add(
        "/checkout/plain",
        "<script>window.n = 0</script><button id=b onclick='n++' onmouseover='this.style.color=\"red\"'>"
        "Continue</button>",
    )
    done: list[int] = []

    async def model(messages: list[dict[str, Any]], view: ModelView) -> dict[str, Any]:
        if done:
            return {"action": "done", "success": True, "answer": "ok"}
        done.append(1)
        return {"action": "click", "selector": "#b"}

    confirmer = BatchConfirmer()
    result = await Agent(
        kite_config(), model=FunctionModel(model), confirmer=confirmer, context=ctx_session
    ).run("continue", start_url=url)
    assert result.success, result
    assert await ctx_session.page.evaluate("window.n") == 1
    assert confirmer.asked == [] and confirmer.notified == []


POINT_PAGE = """<!doctype html><title>Review</title><script>window.log = []</script>
<button id=hover onmouseover="this.textContent = 'Pay now'" onclick="log.push('paid')">Continue</button>
<button id=plain onclick="log.push('plain')">Show summary</button>"""


async def test_a_click_by_coordinates_is_judged_again_too(kite_config, ctx_session, pages_server):
    """A vision model clicks where it saw "Continue"; the element there says "Pay now" once the mouse is on it."""
    url = pages_server.add("/checkout/point", POINT_PAGE)
    result, clicks = await click_hover_then_plain(kite_config, ctx_session, url, by_point=True)
    assert result.stop_reason == "done", result
    assert await ctx_session.page.evaluate("window.log") == ["plain"]
    assert clicks[0]["result"]["error"]["error"] == "target_changed", clicks[0]
    assert "'Pay now'" in clicks[0]["result"]["error"]["message"] and clicks[1]["result"]["ok"], clicks


KEY_PAGE = """<!doctype html><title>Review</title><script>window.log = []</script>
<button id=go autofocus onclick="log.push('paid ' + this.textContent)">Continue</button>
<button id=next onfocus="this.textContent = 'Pay now'" onclick="log.push('paid ' + this.textContent)">Next</button>"""


async def test_enter_on_a_button_relabelled_after_the_snapshot_is_judged_again(
    kite_config, ctx_session, pages_server
):
    """Enter on the focused "Continue" (relabelled by a timer while the model thinks) and on a "Next" that
    says "Pay now" once focused: both are judged on the live button and refused in batch mode."""
    todo = ["go", "next"]

    async def model(messages: list[dict[str, Any]], view: ModelView) -> dict[str, Any]:
        if not todo:
            return {"action": "done", "success": True, "answer": "pressed"}
        if todo.pop(0) == "go":
            await ctx_session.page.evaluate("document.getElementById('go').textContent = 'Pay now'")
            return {"action": "pressKey", "key": "Enter"}
        by_id = {e.attrs.get("id"): e for e in view.observation.elements}
        return {"action": "pressKey", "key": "Enter", "index": by_id["next"].index}

    config = kite_config(**{"agent.max_steps": 4, "agent.max_failures": 4})
    agent = Agent(config, model=FunctionModel(model), confirmer=BatchConfirmer(), context=ctx_session)
    result = await agent.run("continue", start_url=pages_server.add("/checkout/keys", KEY_PAGE))
    assert result.stop_reason == "done", result
    assert await ctx_session.page.evaluate("window.log") == []
    keys = [
        a for s in steps_of(result.run_dir)[1:] for a in s["actions"] if a["action"]["action"] == "pressKey"
    ]
    assert [k["decision"]["level"] for k in keys] == ["auto", "auto"], keys
    assert [k["result"]["error"]["error"] for k in keys] == ["target_changed"] * 2, keys
    assert all("'Pay now'" in k["result"]["error"]["message"] for k in keys), keys


async def test_a_look_sent_with_the_move_reads_the_page_after_the_move(ctx_session, pages_server):
    """The look goes out with the mouse move, not after its answer: it waits in the page until the move was
    dispatched at its point (and its handlers ran), so it reads "Pay now", never the "Continue" before it."""
    page = ctx_session.page
    await page.goto(pages_server.add("/checkout/wait", POINT_PAGE))
    button = await page.query_selector("#hover")
    assert button is not None
    box = await button.bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    target = Target(page.main_frame, button, None, "the button")  # the guard runs in Kite's world
    seen = await on_target(target, f"(el) => {guard.op_call('seen')}")
    after = guard.op_call("after", "[kind, base, x, y]")
    look_js = f"async (el, [kind, base, x, y]) => {{ await {after}; return el.textContent; }}"
    elsewhere = asyncio.ensure_future(on_target(target, look_js, ["move", seen["move"], x + 40, y]))
    look = asyncio.ensure_future(on_target(target, look_js, ["move", seen["move"], x, y]))
    # A call that answers in the task after its own: both looks were run before it and still wait.
    await page.evaluate(
        "() => new Promise((r) => { const c = new MessageChannel(); c.port1.onmessage = r; c.port2.postMessage(0); })"
    )
    assert not look.done() and not elsewhere.done()
    await mouse_event(page, "move", x, y)
    assert await look == "Pay now"
    assert not elsewhere.done()  # a move at another point does not answer it; "go" does
    await guard.go(target)
    assert await elsewhere == "Pay now"


async def test_go_answers_a_look_whose_event_came_without_waiting_for_the_task_after(
    ctx_session, pages_server
):
    """After a press Chromium draws the next frame before it runs any other task of the page's, so the task
    after the press's event comes up to a frame late; the press's answer already says its handlers ran, and
    "go" then answers the look waiting for that task at once (in the same call, before any task)."""
    page = ctx_session.page
    await page.goto(pages_server.add("/checkout/go", POINT_PAGE))
    button = await page.query_selector("#hover")
    assert button is not None
    after = guard.op_call("after", "['down', seen.down, x, y]")
    js = f"""async (el) => {{
      const r = el.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
      const seen = {guard.op_call("seen")};
      let answered = false;
      {after}.then(() => {{ answered = true; }});
      el.dispatchEvent(new PointerEvent('pointerdown', {{clientX: x, clientY: y, bubbles: true}}));
      const due = answered;  // the event came: answered in the task after it, not before
      {guard.op_call("go")};
      await Promise.resolve(); await Promise.resolve();
      return [due, answered];
    }}"""
    assert await on_target(Target(page.main_frame, button, None, "the button"), js) == [False, True]


STOPPED_PAGE = """<!doctype html><title>Review</title><script>window.log = [];
for (const t of ['pointermove', 'pointerdown']) addEventListener(t, (e) => e.stopImmediatePropagation(), true);
</script>
<button id=hover onmouseover="this.textContent = 'Pay now'" onclick="log.push('paid')">Continue</button>
<button id=plain onclick="log.push('plain')">Show summary</button>"""


async def test_a_page_hiding_the_pointer_events_from_the_look_is_judged_after_the_input(
    kite_config, ctx_session, pages_server
):
    """A page whose own listeners (before Kite's) stop every pointermove and pointerdown: the look never
    hears of the input in the page and reads once the input's answer came back, so the relabelled button is
    still judged as it reads after the move (refused), and the honest one is clicked."""
    url = pages_server.add("/checkout/stopped", STOPPED_PAGE)
    result, clicks = await click_hover_then_plain(kite_config, ctx_session, url, by_point=False)
    assert result.stop_reason == "done", result
    assert await ctx_session.page.evaluate("window.log") == ["plain"]
    error = clicks[0]["result"]["error"]
    assert error["error"] == "target_changed" and "not confirmed" in error["message"], clicks[0]
    assert "when the mouse reached it" in error["message"] and clicks[1]["result"]["ok"], clicks
