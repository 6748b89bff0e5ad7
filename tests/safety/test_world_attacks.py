"""Pages that attack what Kite reads and the guard it arms from inside their own JavaScript world.

Kite reads, judges and guards from its own world (agent/browser/world.py): a page that replaces
``addEventListener`` before anything of Kite runs, enumerates its window to find and disarm Kite's objects, or
redefines the text and ``href`` getters on the prototypes, neither finds Kite nor changes what Kite reads. Each
page runs through the agent with a scripted model and the batch confirmer: nothing is paid.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kite_browser.agent.base.result import RunResult
from kite_browser.agent.browser.render import render_observation
from kite_browser.agent.llm.model import ModelView
from kite_browser.agent.llm.testing import FunctionModel
from kite_browser.agent.run.loop import Agent
from kite_browser.safety.confirm import BatchConfirmer

# A "Continue" that becomes "Pay now" at pointerup, after the last look before the release: only the input
# guard, reading it again at mouseup and click, stands between it and the payment.
BUTTONS = """<button id=pay onpointerup="this.textContent = 'Pay now'"
  onclick="log.push('paid ' + this.textContent)">Continue</button>
<button id=plain onclick="log.push('plain')">Show summary</button>"""

NO_LISTENERS = (
    """<!doctype html><title>Review</title><script>window.log = [];
const real = EventTarget.prototype.addEventListener;
// Listeners on the window (where a guard would listen) are dropped; the page's own elsewhere still work.
EventTarget.prototype.addEventListener = function (type, fn, opts) {
  if (this === window) { log.push('dropped ' + type); return; }
  return real.call(this, type, fn, opts);
};
</script>"""
    + BUTTONS
)

DISARMING = (
    """<!doctype html><title>Review</title><script>window.log = []; window.found = [];
const hunt = () => {
  for (const name of Object.getOwnPropertyNames(window)) {
    let v;
    try { v = window[name]; } catch (e) { continue; }
    if (/kite|guard/i.test(name) && !found.includes(name)) found.push(name);
    if (!v || (typeof v !== 'object' && typeof v !== 'function') || v === window) continue;
    for (const f of ['disarm', 'remove', 'off', 'stop', 'destroy', 'dispose']) {
      try { if (typeof v[f] === 'function' && /kite|guard/i.test(name)) { v[f](); log.push(name + '.' + f); } } catch (e) {}
    }
  }
};
hunt();
// Before each input reaches the button: look again (a guard armed since) and disarm what is found.
for (const t of ['pointermove', 'pointerdown', 'mousedown', 'pointerup']) addEventListener(t, hunt, true);
</script>"""
    + BUTTONS
)

LYING_GETTERS = """<!doctype html><title>Review</title><script>window.log = [];
const text = { get() { return 'Continue'; }, configurable: true };
Object.defineProperty(Node.prototype, 'textContent', text);
Object.defineProperty(HTMLElement.prototype, 'innerText', text);
Object.defineProperty(HTMLElement.prototype, 'outerText', text);
Object.defineProperty(HTMLAnchorElement.prototype, 'href', { get() { return location.origin + '/shop/next'; } });
const getAttribute = Element.prototype.getAttribute;
Element.prototype.getAttribute = function (name) {
  if (name === 'href') return '/shop/next';
  if (name === 'aria-label' || name === 'title') return 'Continue';
  return getAttribute.call(this, name);
};
Element.prototype.hasAttribute = function (name) { return name === 'href' ? true : getAttribute.call(this, name) !== null; };
</script>
<h1>Your order</h1>
<button id=pay onclick="log.push('paid')">Pay now</button>
<a id=go href="/checkout/pay">Pay now</a>
"""


def _steps(result: RunResult) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (Path(result.run_dir or ".") / "steps.jsonl").read_text().splitlines()]


def _clicks(result: RunResult) -> list[dict[str, Any]]:
    return [a for s in _steps(result)[1:] for a in s.get("actions", []) if a["action"]["action"] == "click"]


async def _click_pay_then_plain(kite_config: Any, ctx_session: Any, url: str) -> RunResult:
    todo = ["pay", "plain"]

    async def model(messages: list[dict[str, Any]], view: ModelView) -> dict[str, Any]:
        if not todo:
            return {"action": "done", "success": True, "answer": "clicked"}
        wanted = todo.pop(0)
        el = next(e for e in view.observation.elements if e.attrs.get("id") == wanted)
        return {"action": "click", "index": el.index}

    config = kite_config(**{"agent.max_steps": 4, "agent.max_failures": 4})
    agent = Agent(config, model=FunctionModel(model), confirmer=BatchConfirmer(), context=ctx_session)
    return await agent.run("continue", start_url=url)


async def test_a_page_that_replaced_add_event_listener_first_cannot_unhook_the_guard(
    kite_config, ctx_session, pages_server
):
    """The page swaps ``addEventListener`` before any of Kite's code runs in it and drops every listener put on
    the window: the guard's listeners are added with its own world's ``addEventListener`` and still cancel the
    input once "Continue" reads "Pay now"."""
    result = await _click_pay_then_plain(
        kite_config, ctx_session, pages_server.add("/checkout/a", NO_LISTENERS)
    )
    log = await ctx_session.page.evaluate("window.log")
    assert not any(x.startswith("paid") for x in log), log
    clicks = _clicks(result)
    assert "plain" in log, log  # the honest button still works
    assert clicks[0]["result"]["error"]["error"] == "target_changed", clicks[0]
    assert "'Pay now'" in clicks[0]["result"]["error"]["message"], clicks[0]
    assert clicks[1]["result"]["ok"], clicks[1]


async def test_a_page_enumerating_its_window_finds_nothing_of_kite_to_disarm(
    kite_config, ctx_session, pages_server
):
    """The page walks its window's own properties before every pointer event and calls any disarm()/remove()
    it finds on something named like Kite or a guard: it finds nothing, and the guard holds."""
    result = await _click_pay_then_plain(kite_config, ctx_session, pages_server.add("/checkout/b", DISARMING))
    page = ctx_session.page
    log = await page.evaluate("window.log")
    # Nothing of what Kite reads or guards with is among the window's properties (the settle observer, which
    # must wrap the page's own fetch to see its requests, is the one thing of Kite's there: it judges nothing).
    assert [n for n in await page.evaluate("window.found") if n != "__kiteSettle"] == []
    assert log == ["plain"], log  # nothing disarmed, nothing paid
    clicks = _clicks(result)
    assert clicks[0]["result"]["error"]["error"] == "target_changed", clicks[0]


async def test_lying_getters_change_nothing_kite_reads_and_the_payment_is_asked(
    kite_config, ctx_session, pages_server
):
    """The page redefines textContent/innerText/href/getAttribute so that its "Pay now" button and the link to
    /checkout/pay read "Continue" and /shop/next to any script: the model and the policy see what is drawn and
    where the link goes, the click is judged a payment, and the batch confirmer's refusal keeps it unpaid."""
    pages_server.add("/checkout/pay", "<title>Paid</title><p>paid")
    url = pages_server.add("/checkout/c", LYING_GETTERS)
    seen: list[str] = []
    todo = ["pay", "go"]
    confirmer = BatchConfirmer()

    async def model(messages: list[dict[str, Any]], view: ModelView) -> dict[str, Any]:
        seen.append(render_observation(view.observation))
        if not todo:
            return {"action": "done", "success": True, "answer": "clicked"}
        wanted = todo.pop(0)
        el = next(e for e in view.observation.elements if e.attrs.get("id") == wanted)
        return {"action": "click", "index": el.index}

    config = kite_config(**{"agent.max_steps": 4, "agent.max_failures": 4})
    agent = Agent(config, model=FunctionModel(model), confirmer=confirmer, context=ctx_session)
    result = await agent.run("continue", start_url=url)
    first = seen[0]
    assert 'button "Pay now"' in first and 'link "Pay now"' in first, first
    assert "/checkout/pay" in first and "/shop/next" not in first and "Continue" not in first, first
    page = ctx_session.page
    assert await page.evaluate("window.log") == []  # not paid
    assert not page.url.endswith("/checkout/pay"), page.url
    clicks = _clicks(result)
    assert [c["decision"]["level"] for c in clicks] == ["confirm", "confirm"], clicks
    assert all(not c["result"]["ok"] for c in clicks), clicks
    asked = [r.element.name for r, _ in confirmer.asked if r.element is not None]
    assert asked == ["Pay now", "Pay now"], asked
