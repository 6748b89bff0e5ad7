"""Each step policy alone (``agent/policies/``, the others switched off in ``agent.policies``), driven by a
scripted model through a real browser on the bundled sites; the seam itself (names, reasons, the config);
and the ordinary tasks the task parser once cut wrongly, whose guess is now a hint and never a restriction."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kite_browser.agent import Agent, FunctionModel, ModelView
from kite_browser.agent.base.errors import ConfigError
from kite_browser.agent.base.result import RunResult
from kite_browser.agent.browser.observation import Element, Observation, PageSummary, Rect
from kite_browser.agent.config import KiteConfig, load_config
from kite_browser.agent.policies import MAKERS, POLICY_NAMES, Policy, StepPolicy, build
from kite_browser.agent.policies.quoted_text import on_page, quoted
from kite_browser.agent.policies.recap import progress, task_parts
from tests.agent.plan_model import find_index, prompt_text
from tests.agent.test_recap import _did
from tests.fixtures.sites import site_state


def only(kite_config: Callable[..., KiteConfig], *names: str, **more: Any) -> KiteConfig:
    """A config with just ``names`` on, for every kind of model."""
    on = list(names)
    kinds = {f"agent.policies.{kind}": on for kind in ("constrained", "function_calling", "text")}
    return kite_config(**{"llm.model": "", **kinds, **more})


def _box(view: ModelView) -> int:
    return next(e.index for e in view.observation.elements if e.tag == "input" and e.name == "Search")


def _search(view: ModelView) -> int:
    return next(e.index for e in view.observation.elements if e.tag == "button" and e.name == "Search")


def _steps(run_dir: str) -> list[dict[str, Any]]:
    """The run record's steps (steps.jsonl)."""
    return [json.loads(line) for line in Path(run_dir, "steps.jsonl").read_text().splitlines()]


def _results(model: FunctionModel, i: int) -> str:
    return prompt_text(model.messages[i]).split("# Result of your last actions", 1)[1].split("\n# ", 1)[0]


def test_every_policy_is_a_step_policy_with_a_name_and_a_one_sentence_reason() -> None:
    config = load_config(overrides={}, env={})
    made = [MAKERS[name](config.agent) for name in POLICY_NAMES]
    assert [p.name for p in made] == list(POLICY_NAMES)
    for p in made:
        assert isinstance(p, StepPolicy) and isinstance(p, Policy)
        assert p.reason.endswith(".") and p.reason.count(". ") == 0 and "\n" not in p.reason, p.reason


def test_the_config_switches_policies_by_name_and_kind_of_model() -> None:
    config = load_config(
        overrides={
            "agent.policies.constrained": ["repeats", "recap"],
            "agent.policies.function_calling": ["loop_guard"],
            "agent.policies.disabled": ["recap"],
        },
        env={},
    )
    assert build(config.agent, constrained=True, function_calling=False).names == ["repeats"]
    assert build(config.agent, constrained=False, function_calling=True).names == ["loop_guard"]
    assert build(config.agent, constrained=False, function_calling=False).names == [
        n for n in POLICY_NAMES if n not in ("recap", "own_plan")
    ]
    with pytest.raises(ConfigError, match="unknown step policy 'nope'"):
        load_config(overrides={"agent.policies.disabled": ["nope"]}, env={})


@pytest.mark.parametrize(
    ("task", "parts"),
    [
        ("Add milk, eggs and bread to the cart", ["Add milk, eggs and bread to the cart"]),
        (
            "Find a hotel in Paris, London or Rome and book it",
            ["Find a hotel in Paris, London or Rome", "book it"],
        ),
        ("add two of the Red Enamel Mug", ["add two of the Red Enamel Mug"]),
    ],
)
def test_ordinary_tasks_are_not_cut_at_a_lists_comma(task: str, parts: list[str]) -> None:
    assert task_parts(task) == parts


def test_typing_a_city_does_not_count_the_hotel_found() -> None:
    """The guess claims nothing for typing one city of three: no part done, nothing next."""
    assert progress(
        "Find a hotel in Paris, London or Rome and book it", [_did(1, "type", "Search", text="Paris")]
    ) == (
        [],
        None,
    )


async def _reload_twice(config: KiteConfig, ctx_session: Any, sites: Any) -> tuple[FunctionModel, RunResult]:
    """A scripted run on the shop: refresh, refresh again, done."""
    plan: list[Any] = [
        {"action": "refresh"},
        {"action": "refresh"},
        {"action": "done", "success": True, "answer": "ok"},
    ]
    model = FunctionModel(lambda m, v: plan[len(model.views) - 1])
    result = await Agent(config, model=model, context=ctx_session).run(
        "Reload the shop", start_url=sites.url("/shop/")
    )
    return model, result


async def test_repeats_alone_holds_a_reload_that_brought_the_same_page_back(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    model, result = await _reload_twice(only(kite_config, "repeats"), ctx_session, sites)
    assert result.stop_reason == "done", result.message
    assert "error repeated" not in _results(model, 1)
    assert "refresh → error repeated: not run: the same action ran from this same page at step 1" in _results(
        model, 2
    )
    assert "Already done from this same page, and it came back unchanged: refresh" in prompt_text(
        model.messages[2]
    )


async def test_unfilled_alone_refuses_an_empty_sign_in_once(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        if len(model.views) <= 2:
            return {
                "action": "click",
                "index": next(
                    e.index for e in view.observation.elements if e.tag == "button" and e.name == "Log in"
                ),
            }
        return {"action": "done", "success": False, "answer": "no password"}

    model = FunctionModel(fn)
    config = only(kite_config, "unfilled", **{"agent.max_failures": 2})
    result = await Agent(config, model=model, context=ctx_session).run(
        "Log in", start_url=sites.url("/account/login")
    )
    assert result.stop_reason == "done", result.message
    assert "error unfilled_form" in _results(model, 1)
    assert "error unfilled_form" not in _results(model, 2)  # asked once: the same click on the same page runs
    assert [a["success"] for a in (await site_state(ctx_session.page, sites))["login_attempts"]] == [False]


async def test_loop_guard_alone_warns_then_stops_the_same_step(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    url = sites.url("/shop/?q=&category=&colour=blue&sort=")
    model = FunctionModel(lambda m, v: {"action": "navigate", "url": url})
    config = only(kite_config, "loop_guard", **{"agent.loop_warn": 2, "agent.loop_stop": 4})
    result = await Agent(config, model=model, context=ctx_session).run("x", start_url=sites.url("/shop/"))
    assert result.stop_reason == "loop_detected" and result.steps == 5, (result.message, result.steps)
    assert "You have repeated the same action" in prompt_text(model.messages[3])


async def test_no_ops_alone_drops_what_would_change_nothing_and_the_reply_goes_on(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    """A ``type`` of what the field holds (typed earlier in the reply, or shown on the page) and a second
    identical scroll after the first changed nothing are dropped with a note; the rest of the reply runs."""

    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        box, go = _box(view), _search(view)
        if len(model.views) == 1:
            return [
                {"action": "scroll", "direction": "up"},
                {"action": "scroll", "direction": "up"},
                {"action": "type", "index": box, "text": "mug"},
                {"action": "type", "index": box, "text": "mug"},
                {"action": "click", "index": go},
            ]
        if len(model.views) == 2:  # the results page shows "mug" in the box
            return [
                {"action": "type", "index": box, "text": "mug"},
                {"action": "done", "success": True, "answer": "ok"},
            ]
        raise AssertionError("the run should have ended")

    model = FunctionModel(fn)
    result = await Agent(only(kite_config, "no_ops"), model=model, context=ctx_session).run(
        "search the shop for mug", start_url=sites.url("/shop/")
    )
    assert result.stop_reason == "done" and result.steps == 2, result.message
    first = [p for p in model.views[1].history if p.step == 1]
    assert [p.name for p in first] == ["scroll", "scroll", "type", "type", "click"]
    assert "not run: the same action earlier in this reply changed nothing" in first[1].line, first[1].line
    assert 'not run: the field already holds "mug"' in first[3].line, first[3].line
    assert first[4].ok and "q=mug" in (result.final_url or "")
    [second] = [rec for rec in _steps(result.run_dir) if rec.get("step") == 2]
    typed = second["actions"][0]["result"]
    assert typed["ok"] and typed["message"] == 'not run: the field already holds "mug"', typed
    assert second["actions"][1]["action"]["action"] == "done"  # the reply went on


NOTES = [
    (
        "recap",
        "Search the shop for mug, then open the cart",
        "/shop/",
        "Next part of the task: open the cart",
    ),
    ("answer_next", "Open the next page, then report what it says", "/test/reply-form.html", "call done now"),
    (
        "out_of_view",
        "Show the alert on the dynamic page and dismiss it.",
        "/dynamic/",
        "Out of view, named like",
    ),
    (
        "named_place",
        "Go to the cart page at /shop/cart, then refresh it",
        "/shop/",
        "The task names the address",
    ),
]


@pytest.mark.parametrize(("name", "task", "start", "said"), NOTES)
async def test_each_note_policy_alone_says_its_line(
    kite_config: Callable[..., KiteConfig],
    ctx_session: Any,
    sites: Any,
    name: str,
    task: str,
    start: str,
    said: str,
) -> None:
    """recap: the parts that look done after a search; answer_next: a step that only read with only the answer
    left; out_of_view: the task's control below the fold; named_place: the address the task names. Each is a
    hint in the prompt: with the policy off, the line is not there."""

    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        step = len(model.views)
        if step == 1 and name == "recap":
            return [
                {"action": "type", "index": _box(view), "text": "mug"},
                {"action": "click", "index": _search(view)},
            ]
        if step == 1 and name == "answer_next":
            return {"action": "click", "index": find_index(view, "Next page")}
        if step == 2 and name == "answer_next":
            return {"action": "read", "query": "order"}
        return {"action": "done", "success": True, "answer": "ok"}

    steps = 3 if name == "answer_next" else 2 if name == "recap" else 1
    for on in (True, False):
        model = FunctionModel(fn)
        config = only(kite_config, name) if on else only(kite_config)
        result = await Agent(config, model=model, context=ctx_session).run(task, start_url=sites.url(start))
        assert result.stop_reason == "done" and result.steps == steps, result.message
        last = prompt_text(model.messages[-1])
        assert (said in last) is on, (on, last[-2000:])


async def test_the_tasks_progress_is_computed_once_per_step(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every policy reads the step's one ``progress`` (it was computed three times per step)."""
    import kite_browser.agent.policies.base as base

    calls: list[int] = []
    real = base.progress

    def counted(task: str, history: Any) -> Any:
        calls.append(len(history))
        return real(task, history)

    monkeypatch.setattr(base, "progress", counted)
    plan: list[Any] = [
        {"action": "scroll", "direction": "down"},
        {"action": "scroll", "direction": "up"},
        {"action": "done", "success": True, "answer": "ok"},
    ]
    model = FunctionModel(lambda m, v: plan[len(model.views) - 1])
    result = await Agent(kite_config(**{"llm.model": ""}), model=model, context=ctx_session).run(
        "Look at the shop, then report what it sells", start_url=sites.url("/shop/")
    )
    assert result.stop_reason == "done" and result.steps == 3, result.message
    assert calls == [0, 1, 2], calls  # once per step, over the history so far


async def test_person_needed_alone_says_to_ask_a_person_on_a_captcha_and_a_code(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    """A page with a CAPTCHA and a one-time-code field gets the askHuman hint; the shop does not; off, never."""
    for on in (True, False):
        for start, asked in (("/test/person-needed.html", True), ("/shop/", False)):
            model = FunctionModel(lambda m, v: {"action": "done", "success": True, "answer": "ok"})
            config = only(kite_config, "person_needed") if on else only(kite_config)
            result = await Agent(config, model=model, context=ctx_session).run(
                "Sign in", start_url=sites.url(start)
            )
            assert result.stop_reason == "done", result.message
            said = "call askHuman" in prompt_text(model.messages[0])
            assert said is (on and asked), (on, start)


async def test_each_step_records_the_policies_that_acted_and_the_run_counts_them(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    """A policy that changed nothing in a run is at 0: off, the run would have sent the same requests."""
    _, result = await _reload_twice(only(kite_config, "repeats", "person_needed"), ctx_session, sites)
    steps = _steps(result.run_dir or "")
    assert [(s["step"], s.get("policies")) for s in steps] == [
        (0, None),  # the start URL's navigation: no policy is asked
        (1, None),
        (2, {"repeats": ["notes", "refused"]}),
        (3, {"repeats": ["notes"]}),
    ]
    assert result.policies_acted == {"repeats": 2, "person_needed": 0}


@pytest.mark.parametrize(
    ("answer", "verified"),
    [("The Sky Blue Espresso Mug costs $7.25", True), ("It is a shop", None)],
)
async def test_claims_verdict_on_a_done_counts_as_acting_and_no_verdict_does_not(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any, answer: str, verified: bool | None
) -> None:
    model = FunctionModel(lambda m, v: {"action": "done", "success": True, "answer": answer})
    result = await Agent(only(kite_config, "claims"), model=model, context=ctx_session).run(
        "What does the Sky Blue Espresso Mug cost?", start_url=sites.url("/shop/")
    )
    assert (result.stop_reason, result.verified) == ("done", verified), result.verification
    acted = {"claims": ["result"]} if verified else None
    assert _steps(result.run_dir or "")[-1].get("policies") == acted
    assert result.policies_acted == {"claims": int(verified is not None)}


def test_the_quoted_texts_of_a_task() -> None:
    assert quoted('Switch tabs to find and click on the link "euismod." then “Delivery times”') == [
        "euismod.",
        "Delivery times",
    ]
    assert quoted("Add milk, eggs and bread to the cart") == []


def test_a_page_that_shows_the_task_does_not_hold_its_quoted_text_by_that() -> None:
    """MiniWoB's pages show the task above the widget: its quoted link is not on the page for that."""
    task = 'Switch between the tabs to find and click on the link "Habitasse".'
    tab = Element(
        index=1, tag="a", role="tab", name="Tab #1", selected=True, rect=Rect(x=0, y=0, width=1, height=1)
    )
    obs = Observation(
        summary=PageSummary(url="http://x/", title="Tabs", visible_text=f"{task}\nLorem"), elements=[tab]
    )
    assert not on_page("Habitasse", obs, task) and on_page("Habitasse", obs)
    assert on_page("lorem", obs, task)


async def test_quoted_text_alone_lists_the_tabs_looked_in_then_names_the_link(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    """Orders is open at the start and lacks the quoted link; Returns and Payment are opened and lack it too;
    once Delivery shows it, the line is gone."""

    def tab(view: ModelView, name: str) -> int:
        index = find_index(view, name, exact=True)
        assert index is not None, name
        return index

    plan: list[Callable[[ModelView], dict[str, Any]]] = [
        lambda v: {"action": "click", "index": tab(v, "Returns")},
        lambda v: {"action": "click", "index": tab(v, "Payment")},
        lambda v: {"action": "click", "index": tab(v, "Delivery")},
        lambda v: {"action": "click", "index": tab(v, "Orders")},
        lambda v: {"action": "done", "success": True, "answer": "opened"},
    ]
    model = FunctionModel(lambda m, v: plan[len(model.views) - 1](v))
    result = await Agent(only(kite_config, "quoted_text"), model=model, context=ctx_session).run(
        'Open the link "Delivery times" in the help topics', start_url=sites.url("/test/tabs.html")
    )
    assert result.stop_reason == "done", result.message
    said = [prompt_text(m) for m in model.messages]
    line = '"Delivery times" is not on this page now. Looked in, and it was not there: '
    assert line + 'tab "Orders". Not opened yet: tab "Returns", tab "Payment", tab "Delivery".' in said[0]
    assert line + 'tab "Orders", tab "Returns". Not opened yet: tab "Payment", tab "Delivery".' in said[1]
    assert line + 'tab "Orders", tab "Returns", tab "Payment". Not opened yet: tab "Delivery".' in said[2]
    assert "is not on this page now" not in said[3]
    assert re.search(r'Named as the task quotes it, on this page: \[\d+\] link "Delivery times"\.', said[3])
    # back on Orders: where it was is said first; Delivery is not among the places still to open
    back = '"Delivery times" was on this page at step 4, while tab "Delivery" was open: open it again.'
    assert back in said[4] and line + 'tab "Orders", tab "Returns", tab "Payment".' in said[4]
    assert result.policies_acted == {"quoted_text": 5}
