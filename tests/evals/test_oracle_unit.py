"""The oracle reads Kite's real prompt (rendered by agent/prompt.py) and answers by index."""

from __future__ import annotations

from agent.llm.oracle import plan_action, progress, to_reply_parts
from agent.llm.oracle_match import pick
from agent.llm.oracle_prompt import parse_element, parse_prompt
from agent.prompt import PromptBuilder

PAGE = """URL: http://127.0.0.1:1/shop/product/mug
Title: Mug
Viewport: 1280x800, scroll 0,0 of page 1280x2000
Elements: 2 buttons, 1 input, 1 link, 0 selects, 0 images, 0 forms
Focused: [5]
Text: Kite Shop Classic Blue Mug $12.99
Interactive elements:
[5] input type=email placeholder="you@example.com" value="a@b.c"
*[7] link "Cart (2)" href=/shop/cart
[9] checkbox "Remember me" checked
[12] button "Add to cart"
[13] button "Add to cart (gift)" frame=0
[14] button "Say \\"hi\\""
… 14 more below, 3 above (getElements visible=false lists them)"""


def _messages(
    history: list[str], results: list[str], language: str = "en", task: str = "Buy the mug"
) -> list[dict]:
    builder = PromptBuilder(task, language, True, False, "auto", 30, [])
    text = builder.user(step=len(history) + 2, history=history, results=results, warnings=[], page=PAGE)
    return builder.messages(text)


def test_element_line_format() -> None:
    el = parse_element('[5] input type=email placeholder="you@example.com" value="a@b.c"')
    assert el is not None and (el.index, el.role, el.name) == (5, "input", "")
    assert el.attrs == {"type": "email", "placeholder": "you@example.com", "value": "a@b.c"}
    new = parse_element('*[7] link "Cart (2)" href=/shop/cart')
    assert new is not None and new.new and new.name == "Cart (2)" and new.attrs["href"] == "/shop/cart"
    assert parse_element('[9] checkbox "Remember me" checked').checked
    assert parse_element('[14] button "Say \\"hi\\""').name == 'Say "hi"'
    assert parse_element("… 14 more below") is None


def test_parse_prompt_reads_task_page_and_history() -> None:
    view = parse_prompt(
        _messages(
            ['1. click [3] link "Mug" → ok (mouse); now at /shop/product/mug'],
            ['type [5] input "Email" text="a@b.c" → ok; value now "a@b.c"'],
        )
    )
    assert view.task == "Buy the mug"
    assert view.url.endswith("/shop/product/mug") and view.focused == 5
    assert [e.index for e in view.elements] == [5, 7, 9, 12, 13, 14]
    assert (view.more_below, view.more_above) == (14, 3)
    assert [(h.action, h.ok) for h in view.history] == [("click", True), ("type", True)]


def test_chinese_prompt() -> None:
    view = parse_prompt(_messages([], [], language="zh", task="把杯子加入购物车"))
    assert view.language == "zh" and view.task == "把杯子加入购物车" and len(view.elements) == 6


def test_name_tiers_and_filters() -> None:
    view = parse_prompt(_messages([], []))
    assert pick(view.elements, "Add to cart").index == 12  # exact beats prefix
    assert pick(view.elements, {"name": "add to cart", "frame": True}).index == 13
    assert pick(view.elements, {"name": "cart", "role": "link"}).index == 7  # substring
    assert pick(view.elements, {"role": "button", "nth": -1}).index == 14
    assert pick(view.elements, {"placeholder": "you@"}).index == 5
    assert pick(view.elements, "Checkout") is None


def test_progress_replays_history_and_skips_failures() -> None:
    plan = [{"click": {"name": "Add to cart"}}, {"type": {"placeholder": "you@", "text": "x"}}, "goBack"]
    history = [
        '1. scroll direction="down" → ok',
        '2. click [12] button "Add to cart" → error covered: …',
        '3. click [12] button "Add to cart" → ok (mouse)',
    ]
    view = parse_prompt(_messages(history, []))
    assert progress(view, plan) == (1, 0)
    assert plan_action(view, plan) == {"action": "type", "text": "x", "index": 5}


def test_missing_element_scrolls_then_fails() -> None:
    view = parse_prompt(_messages([], []))
    assert plan_action(view, [{"click": {"name": "Place order"}}]) == {
        "action": "scroll",
        "direction": "down",
    }
    view.more_below = 0
    action = plan_action(view, [{"click": {"name": "Place order"}}])
    assert action["action"] == "done" and not action["success"] and "Place order" in action["answer"]


def test_plan_finished_and_answer_from() -> None:
    view = parse_prompt(_messages(['1. click [12] button "Add to cart" → ok'], []))
    assert plan_action(view, [{"click": {"name": "Add to cart"}}])["success"] is True
    done = plan_action(
        view, [{"click": {"name": "Add to cart"}}, {"done": {"answer_from": r"Mug (\$[\d.]+)"}}]
    )
    assert done == {"action": "done", "success": True, "answer": "$12.99"}


def test_reply_forms() -> None:
    tools = [{"type": "function", "function": {"name": "click"}}]
    assert to_reply_parts({"action": "click", "index": 3}, tools) == (
        None,
        [{"name": "click", "arguments": {"index": 3}}],
    )
    single = [{"type": "function", "function": {"name": "browser_action"}}]
    assert to_reply_parts({"action": "click", "index": 3}, single)[1] == [
        {"name": "browser_action", "arguments": {"action": "click", "params": {"index": 3}}}
    ]
    content, calls = to_reply_parts({"action": "click", "index": 3}, None)
    assert calls == [] and '```json\n{"action": "click", "index": 3}\n```' in content
