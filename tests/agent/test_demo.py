"""``kite demo`` (the main job of ``make demo``): its default task is scored on the shop's own state and the
answer, never on the model's claim. Driven end to end (the real sites, Chromium, the loop) with a test model
that follows a plan by element names."""

from __future__ import annotations

from typing import Any

import pytest

from kite_browser.agent.cli import main
from tests.agent.plan_model import install, prompt_text

FIND_AND_OPEN: list[tuple[str, str | None, dict[str, Any]]] = [
    ("type", "Search", {"text": "espresso"}),
    ("pressKey", None, {"key": "Enter"}),
    ("click", "Sky Blue Espresso Mug", {}),
    ("click", "Add to cart", {}),
]
REPORT = ("done", None, {"success": True, "answer": "The cart holds 1 × Sky Blue Espresso Mug ($7.25)."})


def test_the_demo_passes_when_the_cart_holds_the_mug(capsys: pytest.CaptureFixture[str]) -> None:
    model = install([*FIND_AND_OPEN, ("click", "View cart", {}), REPORT])
    code = main(["demo", "--model", "kite/plan", "--no-vision"])
    out = capsys.readouterr()
    text = out.out + out.err
    assert code == 0, text[-2000:]
    assert "checked on the shop: the cart holds 1 × Sky Blue Espresso Mug" in text
    # on the cart page the prompt says which parts of the task are done and that the report is what is left
    # (the 1.5B model, with only the list of actions done, kept on adding mugs there)
    on_cart = prompt_text(model.received[-1]["messages"]).split("# Progress", 1)[1].split("# ", 1)[0]
    assert (
        'Parts of the task done: Search the shop for "espresso"; open the mug you find; add it to the cart; '
        "open the cart\nNext part of the task: report what it holds (an answer: once the current page shows it, "
        "call done with it)"
    ) in on_cart, on_cart
    on_product = prompt_text(model.received[-2]["messages"]).split("# Progress", 1)[1].split("# ", 1)[0]
    assert "Next part of the task: open the cart\n" in on_product, on_product


@pytest.mark.parametrize(
    ("plan", "miss"),
    [
        # the claim is success, but more mugs went in (the quantity typed, then "Add to cart" again: a repeat
        # from a changed page runs, agent/policies/repeats.py)
        (
            [*FIND_AND_OPEN, ("type", "Quantity", {"text": "2"}), ("click", "Add to cart", {}), REPORT],
            "state: cart_count = 3, expected 1",
        ),
        # the cart is right, but the answer does not say what it holds
        (
            [*FIND_AND_OPEN, ("done", None, {"success": True, "answer": "Done."})],
            "does not name the Sky Blue Espresso Mug",
        ),
    ],
)
def test_the_demo_fails_on_the_shops_state_not_the_claim(
    capsys: pytest.CaptureFixture[str], plan: list[tuple[str, str | None, dict[str, Any]]], miss: str
) -> None:
    install(plan)
    code = main(["demo", "--model", "kite/plan", "--no-vision"])
    out = capsys.readouterr()
    text = out.out + out.err
    assert code == 1, text[-2000:]
    assert "checked on the shop: not done" in text and miss in text, text[-2000:]
