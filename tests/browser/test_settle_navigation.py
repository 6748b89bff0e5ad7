# ruff: noqa: F811  (the kite fixture is imported into each module)
"""The settle after a navigation: it ends when the new page is settled (its requests answered and handled, its
short timers run, its DOM quiet), not after a fixed network-idle window, and not at the cap because of a
request that never ends (a stream, a long poll, an image that holds up the load event); late-rendered content
is still waited for.

No timed assertions: a window or a stall limit far longer than the cap turns "ended by a fixed wait" into
``timed_out``. Durations are measured by ``python -m kite_browser.evals.bench.tools`` (the ``browser`` navigate rows).
"""

from __future__ import annotations

from typing import Any

from kite_browser.agent.browser.waits import Settler, SettleReport
from kite_browser.agent.config import KiteConfig
from tests.browser.action_pages.harness import (
    Kite,
    kite,  # noqa: F401
    make_kite,
)
from tests.fixtures.browser import PagesServer

_STATIC = "<!doctype html><title>Static</title><body><h1>Settled</h1><button id='b' type='button'>Go</button></body>"

# Streams a never-ending body: says "connected" once the answer begins, then keeps reading (no DOM change).
_STREAMING = """<!doctype html><title>Live</title><body><p id="status">connecting</p><script>
fetch('/nav-stream').then(async (r) => {
  const reader = r.body.getReader();
  document.getElementById('status').textContent = 'connected';
  for (;;) { const {done} = await reader.read(); if (done) break; }
});</script></body>"""

# A long poll that is never answered, beside content rendered at once.
_LONG_POLL = """<!doctype html><title>Poll</title><body><p id="status">ready</p><script>
fetch('/nav-poll').then((r) => r.text()).then(() => { document.getElementById('status').textContent = 'news'; });
</script></body>"""

# An image whose server never answers: the load event never comes.
_HANGING_IMAGE = """<!doctype html><title>Image</title><body><h1>Never loads</h1>
<img src="/nav-hang.png" width="100" height="100" alt="hangs"><button type="button">Still works</button></body>"""

# Adds its buttons once parsed (after DOMContentLoaded: counted as added by a watching observer).
_BUILT = """<!doctype html><title>Built</title><body><div id="app"></div><script>
document.addEventListener('DOMContentLoaded', () => {
  for (let i = 1; i <= 5; i++) { const b = document.createElement('button'); b.textContent = 'b' + i;
    document.getElementById('app').append(b); }
});</script></body>"""

# Content that appears only after the load event, by four routes.
_LATE = """<!doctype html><title>Late</title><body><h1>Late content</h1><div id="out"></div><script>
const out = document.getElementById('out');
const add = (id, text) => { const b = document.createElement('button'); b.id = id; b.textContent = text; out.append(b); };
fetch('/late-slow.json').then((r) => r.json()).then((d) => add('from-fetch', d.label));
fetch('/late-a.json').then((r) => r.json()).then(() => setTimeout(() => {
  fetch('/late-b.json').then((r) => r.json()).then((d) => add('from-chain', d.label));
}, 50));
const x = new XMLHttpRequest();
x.open('GET', '/late-xhr.json');
x.onload = () => setTimeout(() => add('from-xhr', JSON.parse(x.responseText).label), 30);
x.send();
setTimeout(() => add('from-timer', 'Timer'), 150);
</script></body>"""
_JSON = {"Content-Type": "application/json"}


def _config(**waits: Any) -> KiteConfig:
    return KiteConfig.model_validate({"waits": waits})


async def _navigate(page: Any, settler: Settler, url: str) -> SettleReport:
    """What the navigate action does: mark, goto (domcontentloaded), settle."""
    mark = await settler.mark(page)
    await page.goto(url, wait_until="domcontentloaded")
    return await settler.settle(page, mark, "navigate")


async def test_a_settled_page_ends_the_settle_without_a_network_idle_window(
    kite: Kite, pages_server: PagesServer
) -> None:
    """Before: every navigation then waited network_quiet_ms with nothing in flight (~500 ms by default, the
    bulk of the browser tool's navigate); with a window longer than the cap, the settle ran into the cap."""
    settler = Settler(_config(network_quiet_ms=60_000, per_action={"navigate": 4000}).waits)
    rep = await _navigate(kite.page, settler, pages_server.add("/nav-static.html", _STATIC))
    assert rep.navigated and "network" in rep.steps  # the page's own request was waited for ...
    assert not rep.timed_out, rep  # ... and the quiet page ended the wait, not the cap


async def test_a_streamed_response_does_not_hold_the_settle_until_the_cap(
    kite: Kite, pages_server: PagesServer
) -> None:
    """A fetch whose body never ends (a live feed read with a stream reader) is in flight for ever; once its
    answer began and the page's code has it, the page is settled. Before: it held the settle until the cap
    (until network_stall_ms, here longer than the cap)."""
    pages_server.add_stream("/nav-stream", every_s=0.3)
    settler = Settler(_config(network_stall_ms=60_000, per_action={"navigate": 4000}).waits)
    rep = await _navigate(kite.page, settler, pages_server.add("/nav-streaming.html", _STREAMING))
    assert not rep.timed_out, rep
    assert await kite.page.text_content("#status") == "connected"


async def test_a_request_never_answered_ends_the_settle_at_the_stall_limit(
    kite: Kite, pages_server: PagesServer
) -> None:
    """A long poll may be a slow answer still to come: it is waited for until network_stall_ms, no longer
    (in the page as in the network-quiet wait), so the cap does not end the settle."""
    pages_server.add_hang("/nav-poll")
    settler = Settler(_config(network_stall_ms=300, per_action={"navigate": 20_000}).waits)
    rep = await _navigate(kite.page, settler, pages_server.add("/nav-long-poll.html", _LONG_POLL))
    assert not rep.timed_out, rep
    assert await kite.page.text_content("#status") == "ready"


async def test_a_load_event_held_up_for_ever_ends_the_wait_at_the_stall_limit(
    kite: Kite, pages_server: PagesServer
) -> None:
    """Before: the settle waited for the load event until navigation_load_cap_ms or the cap (3 s by default,
    on every page with one image from a server that never answers); now until what holds it up has been
    loading for network_stall_ms."""
    pages_server.add_hang("/nav-hang.png")
    cfg = _config(network_stall_ms=300, navigation_load_cap_ms=60_000, per_action={"navigate": 4000})
    rep = await _navigate(kite.page, Settler(cfg.waits), pages_server.add("/nav-image.html", _HANGING_IMAGE))
    assert not rep.timed_out, rep
    assert rep.steps[:2] == ["navigation", "load_stalled"], rep.steps
    assert await kite.page.evaluate("document.readyState") == "interactive"  # the load event did not come


async def test_navigate_waits_for_content_rendered_after_load(kite: Kite, pages_server: PagesServer) -> None:
    """A fetch answered late, a chain (fetch, timer, fetch), an XHR handled by a timer and a timer set while
    the page loaded: the element list right after the navigate action has all four. network_quiet_ms is 0,
    so no idle window can be what waited for them."""
    pages_server.add("/late-slow.json", '{"label": "Fetched"}', _JSON, delay_s=0.4)
    pages_server.add("/late-a.json", '{"label": "A"}', _JSON)
    pages_server.add("/late-b.json", '{"label": "Chained"}', _JSON, delay_s=0.1)
    pages_server.add("/late-xhr.json", '{"label": "By XHR"}', _JSON, delay_s=0.1)
    k = make_kite(kite.session, kite.run_dir, _config(network_quiet_ms=0))
    res = await k.act(action="navigate", url=pages_server.add("/late.html", _LATE))
    assert res.ok and res.effects.navigated, res
    obs = await k.snap.snapshot(k.page)
    names = {e.name for e in obs.elements}
    assert {"Fetched", "Chained", "By XHR", "Timer"} <= names, names


async def test_a_mark_of_the_previous_document_is_not_compared_with_the_new_one(
    kite: Kite, pages_server: PagesServer
) -> None:
    """The new document has an observer of its own from its start; an in-page wait that meets it with the
    previous document's mark says "a navigation began" instead of counting the new page as the action's
    doing (under load a click's settle could start before the navigation it caused was seen: the model was
    told "5 elements added" after a plain link click)."""
    settler = Settler(KiteConfig().waits)
    await kite.page.goto(pages_server.add("/nav-before.html", _STATIC))
    mark = await settler.mark(kite.page)
    await kite.page.goto(pages_server.add("/nav-built.html", _BUILT))
    assert await kite.page.locator("#app button").count() == 5
    rep = SettleReport()
    assert await settler._dom_quiet(kite.page, mark.dom, 2.0, rep)  # a navigation began
    assert (rep.added, rep.removed, rep.dom_changed) == (0, 0, 0)
