"""BrowserEnv.act on a real Chromium: the target's fingerprint comes from the executor's own resolution of it
(one resolve per action), taken before the action's input lands."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from kite_browser.agent.browser.actions import parse_action
from kite_browser.agent.browser.env import BrowserEnv, EnvSafety
from kite_browser.agent.browser.fingerprint import take_fingerprint
from kite_browser.agent.browser.session import ContextSession
from kite_browser.agent.config import KiteConfig
from tests.fixtures.browser import PagesServer

# The click renames the button, moves it under another heading and relabels it: its fingerprint must be the
# one it had when the action began.
_PAGE = """<!doctype html><body><h2>Before</h2><div id="a"><button id="go" name="go" type="button">Start</button>
<span>next to it</span></div><h2>After</h2><div id="b"></div><script>
document.getElementById('go').addEventListener('click', (e) => {
  const b = e.currentTarget; b.id = 'gone'; b.name = 'moved'; b.textContent = 'Started';
  document.getElementById('b').append(b);
});</script></body>"""


@pytest.fixture
async def env(
    kite_config: Callable[..., KiteConfig], ctx_session: ContextSession, tmp_path: Path
) -> AsyncIterator[BrowserEnv]:
    config = kite_config()
    env = BrowserEnv(config, ctx_session, EnvSafety.from_config(config))
    await env.start(tmp_path)
    yield env
    await env.stop()


def _count_resolves(env: BrowserEnv, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    seen: list[int] = []
    resolve = env.snapshotter.resolve

    async def counted(page: Any, index: int) -> Any:
        seen.append(index)
        return await resolve(page, index)

    monkeypatch.setattr(env.snapshotter, "resolve", counted)
    return seen


async def test_fingerprint_from_the_one_resolve_before_the_click(
    env: BrowserEnv, pages_server: PagesServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    await env.ctx.page.goto(pages_server.add("/env-fp.html", _PAGE))
    obs = await env.observe()
    button = next(el for el in obs.elements if el.name == "Start")
    resolves = _count_resolves(env, monkeypatch)
    acted = await env.act(parse_action({"action": "click", "index": button.index}), obs)
    assert acted.result.ok, acted.result
    assert await env.ctx.page.locator("#b > button").inner_text() == "Started"  # the click landed
    assert resolves == [button.index]  # once: the executor's resolution gave the fingerprint too
    fp = acted.result.target
    assert fp is not None
    assert fp.name == "Start" and fp.attrs.get("id") == "go" and fp.attrs.get("name") == "go"
    assert fp.heading == "Before" and fp.path == "body:1>div:1>button:1"  # where it was: div#a


async def test_no_fingerprint_without_an_index_or_for_a_stale_one(
    env: BrowserEnv, pages_server: PagesServer
) -> None:
    await env.ctx.page.goto(pages_server.add("/env-fp2.html", _PAGE))
    obs = await env.observe()
    by_selector = await env.act(parse_action({"action": "click", "selector": "#go"}), obs)
    assert by_selector.result.ok and by_selector.result.target is None
    stale = await env.act(parse_action({"action": "click", "index": 999}), obs)
    assert not stale.result.ok and stale.result.error is not None
    assert stale.result.error.error == "stale_element" and stale.result.target is None


async def test_a_checked_click_says_what_the_box_is_now(env: BrowserEnv, pages_server: PagesServer) -> None:
    """With the second look (the gate's), the box's state is read as the input guard is disarmed."""
    await env.ctx.page.goto(
        pages_server.add("/env-box.html", "<label><input type=checkbox id=box> Subscribe</label>")
    )
    for expected in (": now checked", ": now unchecked (it was checked: this click unticked it)"):
        obs = await env.observe()
        box = next(el for el in obs.elements if el.name == "Subscribe")
        acted = await env.act(parse_action({"action": "click", "index": box.index}), obs)
        assert acted.result.ok and acted.result.message.endswith(expected), acted.result.message
        assert await env.ctx.page.locator("#box").is_checked() is (expected == ": now checked")


# Two buttons in the page and one in an iframe (another frame's call); one button is removed after the look.
_MANY = """<!doctype html><body><h2>Top</h2><button id="one" name="one">One</button>
<button id="two">Two</button><iframe srcdoc="<h3>Inner</h3><button id='three'>Three</button>"></iframe></body>"""


async def test_fingerprints_of_many_in_one_call_per_frame_as_one_by_one(
    env: BrowserEnv, pages_server: PagesServer
) -> None:
    page = env.ctx.page
    await page.goto(pages_server.add("/env-fps.html", _MANY))
    await page.frame_locator("iframe").locator("#three").wait_for()
    obs = await env.observe()
    by_name = {el.name: el for el in obs.elements}
    indexes = [by_name[n].index for n in ("One", "Two", "Three")]
    one_by_one = {}
    for index in indexes:
        resolved = await env.snapshotter.resolve(page, index)
        one_by_one[index] = await take_fingerprint(resolved.handle, resolved.element)
    many = await env.fingerprints([*indexes, 999])
    assert many == one_by_one  # the unknown index left out
    assert many[by_name["Three"].index].heading == "Inner" and many[by_name["Three"].index].frame == "0"
    await page.evaluate("document.getElementById('two').remove()")
    now = await env.fingerprints(indexes)
    assert set(now) == {by_name["One"].index, by_name["Three"].index}  # the removed one left out
    assert await env.fingerprint(by_name["Two"].index) is None
    assert await env.fingerprint(by_name["One"].index) == one_by_one[by_name["One"].index]
