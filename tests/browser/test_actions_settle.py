# ruff: noqa: F811  (the kite fixture is imported into each module)
"""Settle details: iframes, timer-started navigations, stepped updates, the bundled dynamic widgets."""

from __future__ import annotations

from kite_browser.evals.sites import SitesServer
from tests.browser.action_pages.harness import (
    Kite,
    kite,  # noqa: F401
)
from tests.fixtures.browser import PagesServer

_CHILD = """<!doctype html><body><button id="grow" type="button">Grow</button><div id="box"></div><script>
document.getElementById('grow').addEventListener('click', () => {
  let n = 0;
  const step = () => { const b = document.createElement('button'); b.textContent = 'new ' + (++n);
    document.getElementById('box').append(b); if (n < 5) setTimeout(step, 30); };
  step();
});</script></body>"""
_PARENT = '<!doctype html><body><h1>Parent</h1><iframe src="/settle-child.html" width="400" height="300"></iframe></body>'
_TIMER_NAV = """<!doctype html><body><button id="later" type="button">Go later</button><script>
document.getElementById('later').addEventListener('click', () => {
  setTimeout(() => { location.href = '/settle-landing.html'; }, 120); });</script></body>"""
_LANDING = "<!doctype html><title>Landed</title><body><p id='landed'>here</p></body>"
_FRAMES = """<!doctype html><body><button id="animate" type="button">Animate</button><ol id="steps"></ol><script>
document.getElementById('animate').addEventListener('click', () => {
  let n = 0;
  const frame = () => { const li = document.createElement('li'); li.textContent = 'step ' + (++n);
    document.getElementById('steps').append(li); if (n < 5) requestAnimationFrame(frame); };
  requestAnimationFrame(frame);
});</script></body>"""

# An accordion animated on a 13 ms interval (jQuery 1.x): its first steps round to no change, then the panel
# grows to its height and its link shows.
_INTERVAL = """<!doctype html><body><button id="open" type="button">Section 2</button>
<div id="panel" style="height:0;overflow:hidden"><a href="#x" id="inside">Inside link</a></div><script>
document.getElementById('open').addEventListener('click', () => {
  let n = 0;
  const id = setInterval(() => { n++; const h = Math.max(0, Math.round((n - 5) * 4));
    document.getElementById('panel').style.height = h + 'px';
    if (h >= 40) { clearInterval(id); document.getElementById('panel').style.height = ''; } }, 13);
});</script></body>"""
# A click that starts a poll which never stops and never changes anything.
_POLL = """<!doctype html><body><button id="watch" type="button">Watch</button><p id="out">idle</p><script>
document.getElementById('watch').addEventListener('click', () => {
  document.getElementById('out').textContent = 'watching';
  setInterval(() => { window.polls = (window.polls || 0) + 1; }, 50);
});</script></body>"""

# A menu that opens its submenu 300 ms after the pointer came (jQuery UI's menu delay); a click there sets off a
# 300 ms timer too, which a click does not wait for.
_DELAYED_MENU = """<!doctype html><body><ul><li id="people">People<ul id="sub" hidden><li><a href="#ann">Ann</a></li>
</ul></li></ul><button id="later" type="button">Later</button><p id="note"></p><script>
document.getElementById('people').addEventListener('mouseenter', () => {
  setTimeout(() => { document.getElementById('sub').hidden = false; }, 300); });
document.getElementById('later').addEventListener('click', () => {
  setTimeout(() => { document.getElementById('note').textContent = 'late'; }, 300); });</script></body>"""


async def test_dom_quiet_watches_iframes(kite: Kite, pages_server: PagesServer) -> None:
    pages_server.add("/settle-child.html", _CHILD)
    await kite.goto(pages_server.add("/settle-parent.html", _PARENT))
    frame = next(f for f in kite.page.frames if f.url.endswith("/settle-child.html"))
    await frame.wait_for_selector("#grow")
    res = await kite.act(action="click", index=await kite.index_of("#grow", "settle-child"))
    assert res.ok and res.method == "mouse"
    # The iframe grew in five steps, 30 ms apart: the settle waited for all of them and counted them.
    assert await frame.locator("#box button").count() == 5
    assert res.effects.added == 5


async def test_navigation_started_by_a_timer_is_followed(kite: Kite, pages_server: PagesServer) -> None:
    pages_server.add("/settle-landing.html", _LANDING)
    await kite.goto(pages_server.add("/settle-timer-nav.html", _TIMER_NAV))
    res = await kite.act(action="click", selector="#later")
    assert res.ok and res.effects.navigated
    assert res.effects.url_after == pages_server.url("/settle-landing.html")
    assert await kite.page.title() == "Landed"


async def test_update_over_several_animation_frames_settles_once_done(
    kite: Kite, pages_server: PagesServer
) -> None:
    await kite.goto(pages_server.add("/settle-frames.html", _FRAMES))
    res = await kite.act(action="click", selector="#animate")
    assert res.ok
    assert await kite.page.locator("#steps li").count() == 5


async def test_toast_and_modal_settle_without_waiting_for_long_timers(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/dynamic/"))
    await kite.page.wait_for_selector("#loaded-message")  # the delayed news shifts the layout when it lands
    toast = await kite.act(action="click", selector="#show-toast")
    assert toast.ok and await kite.page.locator(".toast").count() == 1
    # The toast removes itself after 3 s: a timer that long is not the click's reaction to wait for.
    assert toast.data["settle_ms"] < 2500
    modal = await kite.act(action="click", selector="#open-modal")
    assert modal.ok and await kite.page.locator("#modal").is_visible()
    assert modal.effects.focused and "modal-email" in modal.effects.focused


async def test_an_animation_on_an_interval_is_waited_for_though_its_first_steps_change_nothing(
    kite: Kite, pages_server: PagesServer
) -> None:
    await kite.goto(pages_server.add("/settle-interval.html", _INTERVAL))
    res = await kite.act(action="click", selector="#open")
    assert res.ok
    # Ended after the interval cleared: the panel is open (its inline height removed), not part-way.
    assert await kite.page.evaluate("document.getElementById('panel').style.height") == ""
    obs = await kite.snap.snapshot(kite.page)
    assert any(e.name == "Inside link" for e in obs.elements)


async def test_a_poll_the_action_starts_holds_the_settle_only_a_while(
    kite: Kite, pages_server: PagesServer
) -> None:
    await kite.goto(pages_server.add("/settle-poll.html", _POLL))
    res = await kite.act(action="click", selector="#watch")
    assert res.ok and await kite.page.locator("#out").text_content() == "watching"
    polls = await kite.page.evaluate("window.polls")
    # Followed while it ran (it ran several times before the settle ended), then let go: the settle did not
    # wait for its cap (3 s) on a poll that never stops.
    assert polls >= 5
    assert res.data["settle_ms"] < 2500
    # The page sees its own setInterval: native, same name and length as a pristine frame's.
    seen = await kite.page.evaluate(
        "() => { const f = document.createElement('iframe'); document.body.append(f); const w = f.contentWindow;"
        " return [String(setInterval) === String(w.setInterval), setInterval.name, setInterval.length === "
        "w.setInterval.length, String(clearInterval) === String(w.clearInterval)]; }"
    )
    assert seen == [True, "setInterval", True, True]


async def test_a_hover_waits_for_a_submenu_that_opens_after_a_delay(
    kite: Kite, pages_server: PagesServer
) -> None:
    await kite.goto(pages_server.add("/settle-menu.html", _DELAYED_MENU))
    res = await kite.act(action="hover", selector="#people")
    assert res.ok
    # The submenu opened within the hover's settle: open as the hover answers, and the next look lists it.
    assert await kite.page.evaluate("document.getElementById('sub').hidden") is False
    obs = await kite.snap.snapshot(kite.page)
    assert any(e.name == "Ann" for e in obs.elements)
    # A click's reaction is followed through shorter timers only: a 300 ms one is left to run on its own.
    click = await kite.act(action="click", selector="#later")
    assert click.ok and await kite.page.locator("#note").text_content() == ""
