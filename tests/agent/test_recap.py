"""Memory a small model can use: once the run has left a page, the prompt says what was done there by role and
name (never by an index that is gone, also inside earlier results such as ``read``'s links), and which elements
of the new page are named like the task."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kite_browser.agent import Agent, FunctionModel, ModelView
from kite_browser.agent.browser.observation import Element, Observation, PageSummary, Rect
from kite_browser.agent.config import KiteConfig
from kite_browser.agent.llm.model import PastAction
from kite_browser.agent.policies.recap import (
    answer_next,
    asks_answer,
    named_place,
    progress,
    recap,
    task_parts,
    words,
)
from kite_browser.agent.run.memory import Memory
from kite_browser.agent.run.prompt import render, strings
from tests.agent.plan_model import find_index, prompt_text

FORM = """<!doctype html><title>Form</title>
<label>Name <input id="name"></label> <a href="{next}">Next page</a>"""
NEXT = """<!doctype html><title>Next</title><p>Almost there.</p>
<button>Print</button> <button>Finish the order</button> <a href="/">Home</a>"""


async def test_after_a_page_change_the_prompt_recaps_by_role_and_name(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, pages_server: Any
) -> None:
    nxt = pages_server.add("/next.html", NEXT)
    seen: dict[str, int | None] = {}

    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        if view.step == 1:
            seen["name"] = find_index(view, "name")
            return {"action": "type", "index": seen["name"], "text": "Ada"}
        if view.step == 2:
            seen["link"] = find_index(view, "Next page")
            return {"action": "click", "index": seen["link"]}
        seen["finish"] = find_index(view, "Finish the order")
        return {"action": "done", "success": True, "answer": "ok"}

    model = FunctionModel(fn)
    result = await Agent(kite_config(**{"llm.model": ""}), model=model, context=ctx_session).run(
        "Type the name Ada, then finish the order",
        start_url=pages_server.add("/form.html", FORM.format(next=nxt)),
    )
    assert result.success, result
    same_page, new_page = prompt_text(model.messages[1]), prompt_text(model.messages[2])
    # on the first page, only the parts done: no earlier pages, no offers (the page lists it all)
    first = same_page.split("# Progress", 1)[1].split("# ", 1)[0]
    assert "Parts of the task done: Type the name Ada" in first and "named like the task" not in first, first
    assert "Done on earlier pages" not in first
    progress = new_page.split("# Progress", 1)[1].split("# ", 1)[0]
    assert 'Done on earlier pages: type input "Name" text="Ada"; click link "Next page"' in progress
    assert f'On this page, named like the task: [{seen["finish"]}] button "Finish the order"' in progress
    assert "Print" not in progress and "Home" not in progress  # not named like the task
    assert f"[{seen['name']}]" not in new_page and f"[{seen['link']}]" not in new_page


def test_indexes_gone_from_the_page_leave_earlier_results_too() -> None:
    """A result that listed elements (``read``'s links, a stale error's fresh list) kept the old page's indexes,
    which the small model then copied: every reference whose index is gone is taken out, the names stay."""
    memory = Memory(full_steps=3)
    memory.begin(1, "http://x/list")
    memory.add("read → ok\n[Blue mug][#12] $7.25\n[Red mug][#13] $8.00", target=None)
    memory.begin(2, "http://x/list")
    memory.add('click [12] link "Blue mug" → ok; now at http://x/mug', target=12)
    memory.begin(3, "http://x/mug")
    history, results = memory.render(0, live={40, 41})
    text = "\n".join(history + results)
    assert "[#12]" not in text and "[#13]" not in text and "[12]" not in text
    assert "[Blue mug] $7.25" in text and 'click link "Blue mug" (no longer on the page) → ok' in text
    history, _ = memory.render(0, live={12, 40})  # still on the page: its reference stays
    assert "[Blue mug][#12]" in "\n".join(history) and "[Red mug] $8.00" in "\n".join(history)


def test_task_words_ignore_stop_words_and_plurals() -> None:
    assert words("Find the cheapest blue mugs and report their prices") == {
        "cheapest",
        "blue",
        "mug",
        "price",
    }


def test_an_effects_counts_read_as_words() -> None:
    """'1 element came into view', not '1 elements' (the line the model, the panel and the log all read)."""
    from kite_browser.agent.browser.observation import ActionResult, Effects
    from kite_browser.agent.run.memory import describe_result

    one = ActionResult(action="scroll", ok=True, effects=Effects(new_in_view=1, added=1, removed=2))
    assert describe_result(one) == "ok; 1 element added, 2 removed; 1 element came into view"
    many = ActionResult(action="scroll", ok=True, effects=Effects(new_in_view=3, added=2))
    assert describe_result(many) == "ok; 2 elements added, 0 removed; 3 elements came into view"


PRODUCT = """<!doctype html><title>Mug</title><p>Sky Blue Espresso Mug $7.25</p>
<form><input type="hidden" name="added" value="1"><button>Add to cart</button></form>
<a href="/cart.html">View cart</a> <a href="/mug.html">Back to the mug</a> <button type="button">Cart (1)</button>"""


async def test_an_element_already_used_is_not_offered_again(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, pages_server: Any
) -> None:
    """A recorded demo run (0389f22 + d17e737): after "Add to cart" worked, the product page (same product,
    ?added=1) listed "Add to cart" as named like the task, and the model added the mug four more times. What
    was done is recapped as done; what the page offers toward the task is what is not done yet, and not a way
    back to a page the run has been on (the next recorded run clicked "Kite Shop", offered first)."""
    seen: dict[str, int | None] = {}

    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        if view.step == 1:
            return {"action": "click", "index": find_index(view, "Add to cart")}
        seen["view"] = find_index(view, "View cart")
        return {"action": "done", "success": True, "answer": "ok"}

    model = FunctionModel(fn)
    result = await Agent(kite_config(**{"llm.model": ""}), model=model, context=ctx_session).run(
        "Add the mug to the cart, then view the cart", start_url=pages_server.add("/mug.html", PRODUCT)
    )
    assert result.success, result
    progress = prompt_text(model.messages[1]).split("# Progress", 1)[1].split("# ", 1)[0]
    assert 'Done on earlier pages: click button "Add to cart"' in progress
    offered = progress.split("named like the task:", 1)[1]
    assert f'[{seen["view"]}] link "View cart"' in offered and "Add to cart" not in offered
    assert "Back to the mug" not in offered  # a link to a page the run has been on (the start page)
    # a button whose only task word, "cart", "Add to cart" took care of; the link "View cart" stays offered
    assert "Cart (1)" not in offered


SEARCH = """<!doctype html><title>Shop</title>
<form action="/found.html"><label>Search <input name="q"></label></form>"""
FOUND = """<!doctype html><title>Found</title>
<a href="/basket.html">Cart (0)</a> <p>1 product</p> <a href="/espresso.html">Sky Blue Espresso Mug</a>"""


async def test_offers_rank_by_every_task_word_an_element_names(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, pages_server: Any
) -> None:
    """After searching "espresso", the product named "… Espresso Mug" names two task words (one already taken
    care of) and the cart link one: the product comes first. Ranked by the words not yet taken care of alone,
    the two tied and the cart link, first on the page, led (a recorded demo run then searched again)."""
    pages_server.add("/found.html", FOUND)

    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        if view.step == 1:
            return [
                {"action": "type", "index": find_index(view, "Search"), "text": "espresso"},
                {"action": "pressKey", "key": "Enter"},
            ]
        return {"action": "done", "success": True, "answer": "ok"}

    model = FunctionModel(fn)
    result = await Agent(kite_config(**{"llm.model": ""}), model=model, context=ctx_session).run(
        'Search the shop for "espresso", open the mug and put it in the cart',
        start_url=pages_server.add("/search.html", SEARCH),
    )
    assert result.success, result
    progress = prompt_text(model.messages[1]).split("# Progress", 1)[1].split("# ", 1)[0]
    offered = progress.split("named like the task:", 1)[1]
    assert offered.index("Sky Blue Espresso Mug") < offered.index("Cart (0)"), offered


def test_a_task_is_cut_where_a_new_instruction_starts() -> None:
    assert task_parts(
        'Search the shop for "espresso, or tea", open the mug you find, add it to the cart, then open the cart '
        "and report what it holds."
    ) == [
        'Search the shop for "espresso, or tea"',
        "open the mug you find",
        "add it to the cart",
        "open the cart",
        "report what it holds",
    ]
    assert task_parts("Log in as alice and then add two mugs to the cart. Report the total.") == [
        "Log in as alice",
        "add two mugs to the cart",
        "Report the total",
    ]
    assert task_parts("Fill in the form (name Ada, email a@b.c), then submit it") == [
        "Fill in the form (name Ada, email a@b.c)",
        "submit it",
    ]
    assert task_parts("Filter by blue and red mugs") == ["Filter by blue and red mugs"]  # no verb after "and"
    assert task_parts("搜索“咖啡”，然后打开购物车") == ["搜索“咖啡”", "打开购物车"]


def _did(step: int, action: str, name: str, ok: bool = True, **more: str) -> PastAction:
    el = Element(index=step, tag="a", name=name, rect=Rect(x=0, y=0, width=1, height=1))
    return PastAction(step=step, action={"action": action, "index": step, **more}, ok=ok, element=el)


def test_progress_claims_only_the_parts_done_in_order() -> None:
    task = 'Search the shop for "espresso", open the mug you find, add it to the cart and report its price'
    search = _did(1, "type", "Search", text="espresso")
    mug = _did(2, "click", "Sky Blue Espresso Mug")
    add = _did(3, "click", "Add to cart")
    assert progress(task, [search, mug, add]) == (
        ['Search the shop for "espresso"', "open the mug you find", "add it to the cart"],
        "report its price",
    )
    # an action that failed did nothing; a later part done before an earlier one is not claimed
    assert progress(task, [search, _did(2, "click", "Sky Blue Espresso Mug", ok=False), add]) == (
        ['Search the shop for "espresso"'],
        "open the mug you find",
    )
    assert progress(task, [add, mug]) == ([], None)  # nothing claimed until the first part is done
    # a part with no word to judge it by ends the claims there ("one" is a stop word)
    assert progress("Click button ONE, then click button TWO", [_did(1, "click", "ONE")]) == ([], None)
    assert progress("Add it to the cart", [add]) == ([], None)  # one part: the steps say it all


def test_a_part_that_asks_for_an_answer_is_told_apart_from_an_action() -> None:
    assert asks_answer("report what it holds") and asks_answer("Tell me the total")
    assert asks_answer("how many reviews does it have") and asks_answer("告诉我总价")
    assert not asks_answer("open the cart") and not asks_answer("add two mugs to the cart")
    # "show the results": the results are the answer (recorded: with them in view the 1.5B model clicked
    # Search four more times, then opened a product and put it in the cart)
    assert asks_answer("show the results") and asks_answer("list the red products")
    assert progress(
        'Search the shop for "mug" and show the results', [_did(1, "type", "Search", text="mug")]
    ) == (
        ['Search the shop for "mug"'],
        "show the results",
    )


def test_every_part_done_tells_the_model_to_finish() -> None:
    """When the steps have done every part, the prompt says so (and says nothing of it before)."""
    task = 'Search the shop for "espresso", then open the mug you find'
    search = _did(1, "type", "Search", text="espresso")
    mug = _did(2, "click", "Sky Blue Espresso Mug")
    obs = Observation(summary=PageSummary(url="http://shop.test/p/mug", title="Mug"))
    urls = {1: "http://shop.test/", 2: "http://shop.test/?q=espresso"}
    done = recap(task, [search, mug], urls, obs)
    assert done["all_done"] == ["yes"] and done["next"] == []
    assert recap(task, [search], urls, obs)["all_done"] == []
    for language, said in (("en", "Every part of the task looks done"), ("zh", "任务的每一部分看来都已完成")):
        text = render("observation.j2", t=strings(language), task=task, output_schema=None, step=3, max_steps=9, history=[],
                      results=[], warnings=[], page="", recap=done)  # fmt: skip
        assert said in text
        assert said not in render("observation.j2", t=strings(language), task=task, step=3, max_steps=9,
                                  history=[], results=[], warnings=[], page="",
                                  recap=recap(task, [search], urls, obs), output_schema=None)  # fmt: skip


def _link(index: int, name: str, href: str) -> Element:
    return Element(index=index, tag="a", name=name, href=href, rect=Rect(x=0, y=0, width=1, height=1))


def test_no_link_is_offered_for_words_the_run_only_typed() -> None:
    """Recorded (sites subset, account-login): logged in as "demo@kite.test", the account page offered
    "Kite Shop" as named like the task, and the 1.5B model left the account for the shop."""
    task = "Log in as demo@kite.test with the password you were given, then open Settings"
    typed = _did(1, "type", "Email", text="demo@kite.test")
    obs = Observation(
        summary=PageSummary(url="http://shop.test/account/", title="Account"),
        elements=[_link(9, "Kite Shop", "/shop/"), _link(13, "Settings", "/account/settings")],
    )
    offered = recap(task, [typed], {1: "http://shop.test/account/login"}, obs)["offers"]
    assert offered == ['[13] link "Settings"'], offered
    # the same link is offered when a word it names is not one the run typed
    shop = recap("Go to the Kite shop", [], {1: "http://shop.test/account/login"}, obs)["offers"]
    assert shop == ['[9] link "Kite Shop"'], shop


def test_nothing_is_offered_when_what_is_left_is_the_answer() -> None:
    """Recorded: "search the shop for mug and show the results" was offered the products named "… Mug" on the
    results page, opened one and put it in the cart."""
    task = 'Search the shop for "mug" and show the results'
    obs = Observation(
        summary=PageSummary(url="http://shop.test/?q=mug", title="Shop"),
        elements=[_link(40, "Classic Blue Mug", "/p/blue"), _link(41, "Red Enamel Mug", "/p/red")],
    )
    urls = {1: "http://shop.test/"}
    done = recap(task, [_did(1, "type", "Search", text="mug")], urls, obs)
    assert done["answer"] == ["show the results"] and done["offers"] == [], done
    # before the search is done, the same page offers them
    assert recap(task, [], urls, obs)["offers"], "the test reproduces nothing"


def test_fields_filled_then_sent_together_do_a_part() -> None:
    """Recorded (login-wrong): the email, the password and the click each named a third of "try logging in as
    ... with the password you were given"; sent together they do it, so the answer is what is left. Filled but
    not yet sent, they do not (the form may still need its button)."""
    task = "Try logging in as demo@kite.test with the password you were given and report the error message"
    email = _did(1, "type", "Email", text="demo@kite.test")
    password = _did(2, "type", "Password", text="<secret>attempt</secret>")
    send = _did(3, "click", "Log in")
    first = "Try logging in as demo@kite.test with the password you were given"
    assert progress(task, [email, password, send]) == ([first], "report the error message")
    assert answer_next(task, [email, password, send])
    assert progress(task, [email, password]) == ([], None)
    assert not answer_next(task, [email, password])
    # a click alone, on nothing the part names, does not do it
    assert progress(task, [_did(1, "click", "Log in")]) == ([], None)


def test_a_refresh_does_a_part_that_asks_for_one() -> None:
    task = "Go straight to the cart page at /shop/cart, then refresh it"
    went = PastAction(step=1, action={"action": "navigate", "url": "http://shop.test/shop/cart"}, ok=True)
    again = PastAction(step=2, action={"action": "refresh"}, ok=True)
    assert progress(task, [went]) == (["Go straight to the cart page at /shop/cart"], "refresh it")
    assert progress(task, [went, again]) == (
        ["Go straight to the cart page at /shop/cart", "refresh it"],
        None,
    )


def test_an_address_the_task_names_is_pointed_at_until_the_run_is_there() -> None:
    """Recorded (navigate-cart): told to go to the cart "at /shop/cart", the model refreshed the front page."""
    task = "Go straight to the cart page at /shop/cart, then refresh it."
    line = named_place(task, "http://shop.test/shop/")
    assert line == "The task names the address /shop/cart, and this page is /shop/: open it with navigate."
    assert named_place(task, "http://shop.test/shop/cart") is None
    assert named_place(task, "http://shop.test/shop/", ["http://shop.test/shop/cart/"]) is None
    assert named_place("Compare red and/or blue mugs sold after 12/05", "http://shop.test/") is None
    other = named_place("Open http://other.test/shop/ and read it", "http://shop.test/shop/")
    assert other is not None and "http://other.test/shop/" in other
