"""The prompt templates: composed, StrictUndefined, both languages, and cache-friendly."""

from __future__ import annotations

import pytest

from kite_browser.agent.browser.actions import ACTION_NAMES
from kite_browser.agent.run.prompt import PromptBuilder


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("function_calling", [True, False])
@pytest.mark.parametrize("vision", [True, False])
def test_every_variant_renders(language, function_calling, vision):
    p = PromptBuilder("buy a mug", language, function_calling, vision, "auto", 10, ["card"])
    system, user = p.system(), p.user(step=1, history=[], results=[], warnings=["w"], page="PAGE")
    assert "<secret>card</secret>" in system
    assert ("```json" in system) is (not function_calling)
    assert all(name in system for name in ACTION_NAMES) is (not function_calling)
    assert "buy a mug" in user and "<untrusted_page>\nPAGE\n</untrusted_page>" in user


def test_the_system_prompt_does_not_depend_on_the_task():
    a = PromptBuilder("buy a mug", function_calling=False).system()
    b = PromptBuilder("delete my account", function_calling=False).system()
    assert a == b, "a task-specific system prompt defeats prompt caching across tasks"


def test_chinese_prompt_is_chinese():
    system = PromptBuilder("买一个杯子", language="zh").system()
    assert "浏览器" in system and "You are Kite" not in system


def test_layered_mode_tells_the_model_to_ask_for_elements():
    assert "getElements" in PromptBuilder("t", observation_mode="layered").system()


def test_kites_notes_about_the_snapshot_are_outside_the_page():
    from kite_browser.agent.browser.observation import Observation, PageSummary
    from kite_browser.agent.run.prompt import kite_notices, page_text

    warning = "frame #f1: no answer within the time cap; left out"
    obs = Observation(summary=PageSummary(url="http://127.0.0.1:1/", visible_text="hi", warnings=[warning]))
    page = page_text(obs, layered=False, budget_tokens=500)
    assert warning not in page and obs.summary.warnings == [warning]  # the observation itself is untouched
    notices = kite_notices(obs)
    user = PromptBuilder("t").user(step=1, history=[], results=[], warnings=notices, page=page)
    assert user.index(warning) > user.index("</untrusted_page>")  # after the page: read last, never inside it


def test_the_system_prompt_stays_small():
    """Its size in tokens (the local model reads it every first step; `python -m kite_browser.evals.bench.prompt_size`
    prints it per mode): the JSON fallback lists every action, function calling leaves them to the tools."""
    from kite_browser.agent.browser.tokens import count_tokens

    sizes = {fc: count_tokens(PromptBuilder("t", function_calling=fc).system()) for fc in (False, True)}
    print(f"system prompt tokens: JSON fallback {sizes[False]}, function calling {sizes[True]}")
    assert sizes[False] <= 1030 and sizes[True] <= 450, sizes  # askHuman costs the fallback list 24


def test_the_prompt_says_what_small_models_got_wrong():
    system = PromptBuilder("t", function_calling=False).system()
    assert "checkboxes and radio buttons" in system and "Use select only on a `select` dropdown" in system
    assert "click(index, mouse_button?, double?)" in system and "button?" not in system.replace(
        "mouse_button?", ""
    )
    assert (
        "selector" not in system.split("# Actions")[1].split("getElementDetails")[0]
    )  # no signature offers it


def test_constrained_replies_get_the_action_names_and_parameters_only():
    """Under a reply schema the server's grammar holds every action's fields and the element is a ``target``:
    the catalogue is the signatures (no descriptions, no selector rule): ~370 tokens fewer for the local model
    on every first step."""
    from kite_browser.agent.browser.tokens import count_tokens

    plain = PromptBuilder("t", function_calling=False).system()
    brief = PromptBuilder("t", function_calling=False, constrained=True).system()
    assert "- click(index, mouse_button?, double?)\n- type(index, text, append?)\n" in brief
    assert "with a real mouse click" in plain and "with a real mouse click" not in brief
    assert "A CSS `selector` is only for" in plain and "selector" not in brief
    assert '"target": "<role>: <name> [N]"' in brief and all(name in brief for name in ACTION_NAMES)
    assert count_tokens(brief) <= count_tokens(plain) - 300


@pytest.mark.parametrize("schema", [None, '{"type": "object"}'])
def test_every_user_message_opens_with_the_same_task_part(schema):
    """The task (and its answer format) comes first and the step line after it: with the system message that
    is the prefix a local server's prompt cache keeps from one step to the next."""
    p = PromptBuilder("buy a mug", function_calling=False, output_schema=schema, constrained=True)
    head = p.task_part()
    assert head.startswith("# The task\nbuy a mug") and ("Answer format" in head) is (schema is not None)
    first = p.user(step=1, history=[], results=[], warnings=[], page="PAGE 1")
    later = p.user(
        step=7, history=["1. type", "2. click"], results=["ok"], warnings=["careful"], page="PAGE 2",
        recap={"done": ["x"], "parts": [], "next": [], "all_done": [], "answer": [], "offers": ["y"]},
    )  # fmt: skip
    for user, step in ((first, 1), (later, 7)):
        assert user.startswith(head) and user[len(head) :].lstrip("\n").startswith(f"Step {step} of at most")


def test_the_warm_up_leaves_the_first_steps_count_of_the_system_message_cached():
    """``warm_up`` (run by the loop while the browser starts) counts the system message as the first step
    would: the step's own count is then a cache hit, not the counter's first load."""
    from kite_browser.agent.browser.tokens import count_tokens, estimate_tokens
    from kite_browser.agent.run.prompt import warm_up

    p = PromptBuilder("t", function_calling=False, secret_names=["only-in-this-test"])
    warm_up(p, "gpt-4o-mini")
    before = count_tokens.cache_info()
    assert estimate_tokens("gpt-4o-mini", p.system()) > 0
    after = count_tokens.cache_info()
    assert (after.hits, after.misses) == (before.hits + 1, before.misses)
    warm_up(PromptBuilder("t"), "no-such-provider/no-such-model")  # a counter that fails: no error
