"""A workflow recorded on the sites as designed, replayed with no model on their page variants
(evals/sites/variants.py): a renamed id is no obstacle, a changed label stops the replay (never a guess), and
the hidden element markers the variants carry are nothing the matcher can use."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from kite_browser.agent.browser.env import BrowserEnv, EnvSafety
from kite_browser.agent.browser.observation import Fingerprint
from kite_browser.agent.browser.session import ContextSession
from kite_browser.agent.config import KiteConfig
from kite_browser.agent.run.record import RunRecorder
from kite_browser.agent.workflow.errors import ReplayAmbiguousTargetError, ReplayTargetNotFoundError
from kite_browser.agent.workflow.model import Expect, Step, Workflow
from kite_browser.agent.workflow.replay import Replayer, url_matches
from kite_browser.evals.sites import SitesServer
from kite_browser.evals.sites.variants import MARK
from tests.fixtures.browser import PagesServer
from tests.fixtures.sites import site_state

Variants = Callable[[int], SitesServer]


@pytest.fixture
async def env(
    kite_config: Callable[..., KiteConfig], ctx_session: ContextSession, tmp_path: Path
) -> AsyncIterator[BrowserEnv]:
    config = kite_config()
    env = BrowserEnv(config, ctx_session, EnvSafety.from_config(config))
    await env.start(tmp_path)
    yield env
    await env.stop()


async def _fingerprint(env: BrowserEnv, url: str, name: str) -> Fingerprint:
    """The fingerprint a recorded run keeps of the element named ``name`` on ``url``."""
    await env.ctx.page.goto(url)
    obs = await env.observe(include_all=True)
    index = next(e.index for e in obs.elements if e.name == name)
    fp = await env.fingerprint(index)
    assert fp is not None
    return fp


def _add_to_cart(start: str, target: Fingerprint) -> Workflow:
    step = Step(
        action="click", target=target, intent="add the mug to the cart", expect=Expect(url="/shop/product/*")
    )
    return Workflow(start_url=start, steps=[step])


async def test_a_renamed_id_is_found_again_by_the_rest_of_the_fingerprint(
    env: BrowserEnv, sites_variant: Variants
) -> None:
    v0, v1 = sites_variant(0), sites_variant(1)
    path = "/shop/product/classic-blue-mug"
    recorded = await _fingerprint(env, v0.url(path), "Add to cart")
    assert recorded.attrs["id"] == "add-to-cart"
    await env.ctx.page.goto(v1.url(path))
    renamed = await env.ctx.page.locator(f"[{MARK}='add-to-cart']").get_attribute("id")
    assert renamed and renamed != "add-to-cart"
    out = await Replayer(_add_to_cart(v0.url(path), recorded), start_url=v1.url(path)).run(env)
    assert out.success, out.error
    assert out.results[0].target is not None and out.results[0].target.attrs["id"] == renamed
    state = await site_state(env.ctx.page, v1)
    assert state["cart_count"] == 1 and state["cart"][0]["product_id"] == "classic-blue-mug"


async def test_a_static_apps_renamed_fields_and_moved_sections_are_found_again(
    env: BrowserEnv, sites_variant: Variants
) -> None:
    """The forms app on variant 1: every id renamed (in its script too), its sections and fields reordered;
    the replay types into the same fields and the page's own script still submits them."""
    v0, v1 = sites_variant(0), sites_variant(1)
    name = await _fingerprint(env, v0.url("/forms/"), "Full name")
    age = await _fingerprint(env, v0.url("/forms/"), "Age")
    submit = await _fingerprint(env, v0.url("/forms/"), "Submit")
    assert (name.attrs["id"], age.attrs["id"]) == ("full-name", "age")
    steps = [
        Step(
            action="type",
            args={"text": "Ada"},
            target=name,
            intent="type the name",
            expect=Expect(value="Ada"),
        ),
        Step(
            action="type", args={"text": "36"}, target=age, intent="type the age", expect=Expect(value="36")
        ),
        Step(action="click", target=submit, intent="submit the form"),
    ]
    out = await Replayer(Workflow(start_url=v0.url("/forms/"), steps=steps), start_url=v1.url("/forms/")).run(
        env
    )
    assert out.success, out.error
    page = env.ctx.page
    renamed = [
        await page.locator(f"[{MARK}='{m}']").get_attribute("id") for m in ("full-name", "age", "submit")
    ]
    assert [r.target.attrs.get("id") if r.target else None for r in out.results] == renamed
    assert "full-name" not in renamed and "age" not in renamed
    submitted = (await site_state(page, v1))["form_submissions"][-1]
    assert (submitted["full_name"], submitted["age"]) == ("Ada", "36")


async def test_a_cookie_banner_the_recording_did_not_have_is_closed_first(
    env: BrowserEnv, sites_variant: Variants, tmp_path: Path
) -> None:
    v0, v3 = sites_variant(0), sites_variant(3)
    recorded = await _fingerprint(env, v0.url("/shop/"), "Sky Blue Espresso Mug")
    step = Step(action="click", target=recorded, intent="open the mug", expect=Expect(url="/shop/product/*"))
    wf = Workflow(start_url=v0.url("/shop/"), steps=[step])
    recorder = RunRecorder(tmp_path / "replay")
    out = await Replayer(wf, start_url=v3.url("/shop/"), recorder=recorder).run(env)
    assert out.success, out.error
    assert out.banners == 1
    assert env.ctx.page.url == v3.url("/shop/product/sky-blue-espresso-mug")
    steps = [json.loads(line) for line in (tmp_path / "replay" / "steps.jsonl").read_text().splitlines()]
    closed = [s for s in steps if "cookie banner" in s.get("thought", "")]
    assert len(closed) == 1 and "Only necessary cookies" in closed[0]["thought"]
    assert await env.ctx.page.get_by_role("dialog", name="Cookie consent").count() == 0


async def test_a_label_said_otherwise_stops_the_replay_instead_of_guessing(
    env: BrowserEnv, sites_variant: Variants
) -> None:
    v0, v2 = sites_variant(0), sites_variant(2)
    path = "/shop/product/classic-blue-mug"
    recorded = await _fingerprint(env, v0.url(path), "Add to cart")
    out = await Replayer(_add_to_cart(v0.url(path), recorded), start_url=v2.url(path)).run(env)
    assert isinstance(out.error, ReplayTargetNotFoundError), out.error
    assert 'step 1 (add the mug to the cart): no element matches button "Add to cart"' in out.error.message
    assert (await site_state(env.ctx.page, v2))["cart_count"] == 0  # nothing else was clicked


ONE = f"""<!doctype html><title>none</title><main><h2>Orders</h2>
<section><p>Order</p><button {MARK}="order-1" data-order="1">Delete</button></section></main>"""
TWINS = f"""<!doctype html><title>none</title><main><h2>Orders</h2>
<article><p>Order</p><button {MARK}="order-2" data-order="2" onclick="document.title='two'">Delete</button></article>
<article><p>Order</p><button {MARK}="order-1" data-order="1" onclick="document.title='one'">Delete</button></article>
</main>"""


async def test_the_hidden_marker_is_nothing_the_matcher_can_tell_elements_by(
    env: BrowserEnv, pages_server: PagesServer
) -> None:
    """Recorded on a page with one row; the page now has two rows alike but for the bench's marker (and
    another data attribute), neither where the recorded one was: the replay stops, it does not pick by mark."""
    recorded = await _fingerprint(env, pages_server.add("/workflow/one-order", ONE), "Delete")
    assert MARK not in recorded.model_dump_json() and "data-order" not in recorded.model_dump_json()
    wf = Workflow(
        start_url=pages_server.url("/workflow/one-order"),
        steps=[Step(action="click", target=recorded, intent="delete order 1")],
    )
    out = await Replayer(wf, start_url=pages_server.add("/workflow/two-orders", TWINS)).run(env)
    assert isinstance(out.error, ReplayAmbiguousTargetError), out.error
    assert "step 1 (delete order 1): 2 elements match" in out.error.message
    assert "never guesses" in out.error.message
    assert await env.ctx.page.title() == "none"  # neither was clicked


def test_an_expected_url_holds_with_the_query_in_another_order() -> None:
    """Variant 1 reorders the catalogue's filters, so the search form sends its fields in another order."""
    pattern = "/shop/[?]q=*&category=&colour=yellow&sort="
    assert url_matches("/shop/?q=&category=&colour=yellow&sort=", pattern)
    assert url_matches("/shop/?q=mug&sort=&colour=yellow&category=", pattern)
    assert not url_matches("/shop/?q=mug&sort=&colour=blue&category=", pattern)  # another value
    assert not url_matches("/shop/?q=mug&sort=&colour=yellow", pattern)  # a field missing
    assert not url_matches("/shop/cart?q=&category=&colour=yellow&sort=", pattern)  # another path
    assert url_matches("/shop/product/mug", "/shop/product/*") and not url_matches(
        "/shop/", "/shop/product/*"
    )
