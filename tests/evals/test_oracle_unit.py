"""The oracle reads the structured view the loop hands every model (no prompt parsing) and answers by index."""

from __future__ import annotations

from typing import Any

from kite_browser.agent.browser.actions import Click, Done
from kite_browser.agent.browser.observation import Element, Observation, PageSummary, Rect
from kite_browser.agent.llm.model import ModelView, PastAction
from kite_browser.evals.oracle.decision import flat
from kite_browser.evals.oracle.match import pick
from kite_browser.evals.oracle.miniwob import solve_miniwob
from kite_browser.evals.oracle.model import OracleModel, to_reply_parts
from kite_browser.evals.oracle.plan import MAX_STALLS, plan_action, progress
from kite_browser.evals.oracle.view import OracleView

BOX = Rect(x=0, y=0, width=10, height=10)


def _el(index: int, tag: str, name: str = "", **kw: Any) -> Element:
    return Element(index=index, tag=tag, name=name, rect=BOX, **kw)


ELEMENTS = [
    _el(5, "input", type="email", placeholder="you@example.com", value="a@b.c", editable=True),
    _el(7, "a", "Cart (2)", href="http://127.0.0.1:1/shop/cart", is_new=True),
    _el(9, "input", "Remember me", type="checkbox", checked=True),
    _el(12, "button", "Add to cart"),
    _el(13, "button", "Add to cart (gift)", frame="0"),
    _el(14, "button", 'Say "hi"'),
    _el(20, "button", "Place order", in_viewport=False),
]


def _obs(
    url: str = "http://127.0.0.1:1/shop/product/mug", text: str = "Kite Shop Classic Blue Mug $12.99"
) -> Observation:
    summary = PageSummary(url=url, title="Mug", visible_text=text, focused=5, below=14, above=3)
    return Observation(summary=summary, elements=ELEMENTS)


def _done(step: int, action: dict[str, Any], ok: bool = True, line: str = "") -> PastAction:
    return PastAction(
        step=step, action=action, ok=ok, line=line or f"{action['action']} → {'ok' if ok else 'error'}"
    )


def _plan(view: OracleView, plan: list[Any]) -> dict[str, Any]:
    """The plan's next action in the flat form the oracle sends (only the parameters it set)."""
    return flat(plan_action(view, plan))


def _view(history: list[PastAction] | None = None, **kw: Any) -> OracleView:
    model_view = ModelView(
        task="Buy the mug", step=len(history or []) + 1, observation=_obs(**kw), history=history or []
    )
    return OracleView.of(model_view)


def test_view_lists_the_elements_in_the_viewport() -> None:
    view = _view()
    assert [e.index for e in view.elements] == [5, 7, 9, 12, 13, 14]  # "Place order" is below the fold
    email, cart, remember = view.elements[:3]
    assert (email.role, email.attrs["type"], email.attrs["placeholder"], email.value) == (
        "input",
        "email",
        "you@example.com",
        "a@b.c",
    )
    assert cart.role == "link" and cart.new and remember.checked and view.elements[4].frame == "0"
    assert view.more_below == 14 and view.focused == 5 and view.task == "Buy the mug"


def test_name_tiers_and_filters() -> None:
    els = _view().elements
    assert pick(els, "Add to cart").index == 12  # exact beats prefix
    assert pick(els, {"name": "add to cart", "frame": True}).index == 13
    assert pick(els, {"name": "cart", "role": "link"}).index == 7  # substring
    assert pick(els, {"role": "button", "nth": -1}).index == 14
    assert pick(els, {"placeholder": "you@"}).index == 5
    assert pick(els, 'Say "hi"').index == 14
    assert pick(els, "Checkout") is None


def test_progress_replays_history_and_skips_failures() -> None:
    plan = [{"click": {"name": "Add to cart"}}, {"type": {"placeholder": "you@", "text": "x"}}, "goBack"]
    history = [
        _done(1, {"action": "scroll", "direction": "down"}),
        _done(2, {"action": "click", "index": 12}, ok=False),
        _done(3, {"action": "click", "index": 12}),
    ]
    view = _view(history)
    assert progress(view, plan) == (1, 0)
    assert _plan(view, plan) == {"action": "type", "text": "x", "index": 5}


def test_missing_element_scrolls_then_fails() -> None:
    view = _view()
    assert _plan(view, [{"click": {"name": "Place order"}}]) == {
        "action": "scroll",
        "direction": "down",
    }
    view.more_below, view.more_above = 0, 3  # at the bottom, scrolled past it: back up
    up = {"action": "scroll", "direction": "up"}
    assert _plan(view, [{"click": {"name": "Place order"}}]) == up
    going_up = _view([_done(1, up)])
    assert going_up.more_below and _plan(going_up, [{"click": {"name": "Place order"}}]) == up
    view.more_above = 0
    action = _plan(view, [{"click": {"name": "Place order"}}])
    assert action["action"] == "done" and not action["success"] and "Place order" in action["answer"]
    view.elements = []  # a page that has not rendered yet: wait for it, then give up
    assert _plan(view, [{"click": {"name": "Place order"}}]) == {"action": "wait", "ms": 500}
    stalled = _view([_done(i, {"action": "wait", "ms": 500}) for i in range(1, MAX_STALLS + 1)])
    stalled.elements, stalled.more_below = [], 0
    assert _plan(stalled, [{"click": {"name": "Place order"}}])["action"] == "done"


def test_plan_finished_and_answer_from() -> None:
    view = _view([_done(1, {"action": "executeJS", "code": "1"}, line="executeJS → ok; script returned 42")])
    assert _plan(view, [{"executeJS": {"code": "1"}}])["success"] is True
    plan = [{"executeJS": {"code": "1"}}, {"done": {"answer_from": r"script returned (\d+)"}}]
    assert _plan(view, plan) == {"action": "done", "success": True, "answer": "42"}
    price = [{"executeJS": {"code": "1"}}, {"done": {"answer_from": r"Mug (\$[\d.]+)"}}]
    assert _plan(view, price)["answer"] == "$12.99"  # from the page when the history has no match


def test_done_data_rows_and_an_invalid_step() -> None:
    view = _view([_done(1, {"action": "read"}, line="read → ok; Mug $12.99; Cup $3.50")])
    rows = [{"done": {"data_rows": {"pattern": r"(?P<name>\w+) \$(?P<price>[\d.]+)"}}}]
    assert _plan(view, rows) == {
        "action": "done",
        "success": True,
        "answer": "Mug, 12.99; Cup, 3.50",
        "data": [{"name": "Mug", "price": "12.99"}, {"name": "Cup", "price": "3.50"}],
    }
    failed = _plan(_view(), [{"wait": {"ms": 99999}}])  # the action's model refuses it: the oracle says why
    assert failed["success"] is False and "step 0 (wait) is not a valid action: ms:" in failed["answer"]


def test_miniwob_episode_over_and_solver() -> None:
    from kite_browser.evals.miniwob import OVER_TEXT

    url = "http://127.0.0.1:1/miniwob/click-button.html"
    over = _view(url=url, text=OVER_TEXT)
    assert solve_miniwob(over) == Done(success=True, answer="episode finished")
    assert solve_miniwob(_view(url="http://127.0.0.1:1/shop/")) is None


def test_reply_forms() -> None:
    tools = [{"type": "function", "function": {"name": "click"}}]
    assert to_reply_parts(Click(index=3), tools) == (
        None,
        [{"name": "click", "arguments": {"index": 3}}],
    )
    single = [{"type": "function", "function": {"name": "browser_action"}}]
    assert to_reply_parts(Click(index=3), single)[1] == [
        {"name": "browser_action", "arguments": {"action": "click", "params": {"index": 3}}}
    ]
    content, calls = to_reply_parts(Click(index=3), None)
    assert calls == [] and content is not None and '```json\n{"action": "click", "index": 3}\n```' in content


async def test_oracle_model_answers_a_view() -> None:
    view = ModelView(
        task="Buy the mug", observation=_obs(), tools=[{"type": "function", "function": {"name": "click"}}]
    )
    reply = await OracleModel([{"click": {"name": "Add to cart"}}]).complete([], view.tools, view=view)
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [("click", '{"index": 12}')]


def _page(*elements: Element, below: int = 0) -> OracleView:
    summary = PageSummary(url="http://127.0.0.1:1/shop/", title="Shop", visible_text="", below=below)
    return OracleView.of(
        ModelView(task="t", observation=Observation(summary=summary, elements=list(elements)))
    )


def test_a_label_said_in_other_words_is_found() -> None:
    """A page variant says "Add to basket" where the plan says "Add to cart" (evals/sites/variants.py)."""
    view = _page(_el(3, "button", "Add to basket"), _el(4, "a", "Sign in"))
    assert _plan(view, [{"click": {"name": "Add to cart", "role": "button"}}])["index"] == 3
    assert _plan(view, [{"click": {"name": "Log in"}}])["index"] == 4
    assert pick(view.elements, {"name": "Add to cart", "exact": True}) is not None
    assert pick(view.elements, {"name": "Add to wishlist"}) is None  # no synonym: no match


def test_a_cookie_banner_is_closed_first_and_is_not_the_step() -> None:
    banner = [_el(1, "button", "Accept all cookies"), _el(2, "button", "Only necessary cookies")]
    plan = [{"click": {"name": "Sky Blue Espresso Mug", "role": "link"}}]
    assert _plan(_page(*banner), plan) == {"action": "click", "index": 2}  # the least consent
    closed = _page(_el(9, "a", "Sky Blue Espresso Mug"))
    closed.history = [PastAction(step=1, action={"action": "click", "index": 2}, ok=True, element=banner[1])]
    assert progress(closed, plan) == (0, 1)  # closing the banner did not do the plan's click
    assert _plan(closed, plan) == {"action": "click", "index": 9}


def test_the_next_page_is_opened_for_a_missing_product() -> None:
    plan = [{"click": {"name": "Black Backpack", "role": "link"}}]
    view = _page(_el(1, "a", "Classic Blue Mug"), _el(2, "a", "Next page"))
    assert _plan(view, plan) == {"action": "click", "index": 2}
    view.more_below = 3  # the rest of this page first
    assert _plan(view, plan)["action"] == "scroll"


def test_an_optional_step_is_left_out_when_its_element_is_not_there() -> None:
    plan = [{"click": {"name": "Next page", "optional": True}}, {"getElements": {"type": "link"}}]
    assert _plan(_page(_el(1, "a", "Classic Blue Mug")), plan)["action"] == "getElements"
    assert _plan(_page(_el(1, "a", "Next page")), plan) == {"action": "click", "index": 1}
    done = _page()
    done.history = [PastAction(step=1, action={"action": "getElements", "type": "link"}, ok=True)]
    assert progress(done, plan) == (2, 0)
