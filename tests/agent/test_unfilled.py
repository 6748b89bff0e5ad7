"""Nothing typed, nothing chosen (``agent/unfilled.py``): a click or an Enter that would send a form as the
page gave it is refused once, naming the fields to fill. Through a real browser on the bundled sites: the
recorded first action of the 1.5B model on "log in ..., then log out" (Log in on the empty form, which the
site counted as a failed login) and on "search the shop for mug" (Search with the box empty)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kite_browser.agent import Agent, FunctionModel, ModelView
from kite_browser.agent.config import KiteConfig
from kite_browser.safety.secrets import SecretStore
from tests.agent.plan_model import find_index, prompt_text
from tests.fixtures.sites import site_state


def _button(view: ModelView, name: str) -> int:
    return next(e.index for e in view.observation.elements if e.tag == "button" and e.name == name)


def _last_result(model: FunctionModel, i: int) -> str:
    return prompt_text(model.messages[i]).split("# Result of your last actions", 1)[1][:400]


async def test_log_in_on_the_empty_form_is_refused_and_no_login_is_counted(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        step = len(model.views)
        if step == 1:
            return {"action": "click", "index": _button(view, "Log in")}
        if step == 2:
            return [
                {"action": "type", "index": find_index(view, "Email"), "text": "demo@kite.test"},
                {
                    "action": "type",
                    "index": find_index(view, "Password"),
                    "text": "<secret>demo_password</secret>",
                },
                {"action": "click", "index": _button(view, "Log in")},
            ]
        return {"action": "done", "success": True, "answer": "logged in"}

    model = FunctionModel(fn)
    config = kite_config(**{"llm.model": "", "agent.max_failures": 1})
    store = SecretStore.from_sources(config.safety, cli=["demo_password=kite123"])
    result = await Agent(config, model=model, context=ctx_session, secrets=store).run(
        "Log in as demo@kite.test with the password you were given", start_url=sites.url("/account/login")
    )
    assert result.stop_reason == "done", result.message  # the refusal was no failed step (max_failures 1)
    refused = _last_result(model, 1)
    assert "error unfilled_form" in refused and '"Email", "Password"' in refused, refused
    state = await site_state(ctx_session.page, sites)
    assert state["user"] == "demo@kite.test"
    assert [a["success"] for a in state["login_attempts"]] == [True]


async def test_an_empty_search_runs_and_a_sign_in_asked_again_runs(
    kite_config: Callable[..., KiteConfig], ctx_session: Any, sites: Any
) -> None:
    """Search with nothing typed runs (the shop lists everything: the first version of the rule refused it,
    and the model then typed a product's full name into the box); "Log in" on the empty form is refused, and
    runs when asked again with nothing changed (a person may mean to see the form's own errors)."""

    def fn(messages: list[dict[str, Any]], view: ModelView) -> Any:
        step = len(model.views)
        if step == 1:
            return {"action": "click", "index": _button(view, "Search")}
        if step == 2:
            return {"action": "navigate", "url": sites.url("/account/login")}
        if step in (3, 4):
            return {"action": "click", "index": _button(view, "Log in")}
        return {"action": "done", "success": True, "answer": "ok"}

    model = FunctionModel(fn)
    config = kite_config(**{"llm.model": ""})
    result = await Agent(config, model=model, context=ctx_session).run(
        "Show every product, then try the login form", start_url=sites.url("/shop/")
    )
    assert result.stop_reason == "done", result.message
    assert "error unfilled_form" not in _last_result(model, 1)
    assert "q=" in model.views[1].observation.url, model.views[1].observation.url
    assert "error unfilled_form" in _last_result(model, 3)
    assert "error unfilled_form" not in _last_result(model, 4)  # asked again, nothing changed: it ran
    state = await site_state(ctx_session.page, sites)
    assert [a["success"] for a in state["login_attempts"]] == [False]
