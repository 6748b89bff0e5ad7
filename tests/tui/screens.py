"""Deterministic screens for the snapshot tests: a run view fed with fixed events, a confirmation request."""

from __future__ import annotations

from itertools import count
from typing import Any

from kite_browser.agent.base.events import EVENT_ADAPTER, RunEvent
from kite_browser.agent.browser.observation import Element, Rect
from kite_browser.agent.tui.run_view import RunScreen
from kite_browser.safety.confirm import ConfirmRequest
from kite_browser.safety.policy import ConfirmLevel, Decision

URL = "http://127.0.0.1:8765/shop/checkout"
TASK = "Buy the White Desk Lamp and ship it to Ada Lovelace, 1 Analytical Way, London"
RUN_DIR = "runs/20250101-120000-demo"


def fixed_clock() -> Any:
    ticks = count()
    return lambda: next(ticks) * 0.7


def ev(kind: str, step: int = 0, **data: Any) -> RunEvent:
    return EVENT_ADAPTER.validate_python({"kind": kind, "step": step, **data})


def usage(prompt: int, completion: int, cost: float | None = None) -> dict[str, Any]:
    return {"usage": {"prompt_tokens": prompt, "completion_tokens": completion, "cost_usd": cost}}


EVENTS = [
    ev("start", 0, task=TASK, model="kite/scripted", run_dir=RUN_DIR),
    ev(
        "observe",
        1,
        url="http://127.0.0.1:8765/shop/product/desk-lamp-white",
        title="White Desk Lamp",
        text="White Desk Lamp $24.00 A bright lamp for late nights. Quantity 1 Add to cart",
    ),
    ev("model", 1, **usage(1830, 42, 0.0012)),
    ev(
        "result",
        1,
        action='click [6] button "Add to cart"',
        ok=True,
        level="auto",
        message="ok (mouse); now at /shop/product/desk-lamp-white?added=1",
    ),
    ev("observe", 2, url=URL, title="Checkout", text="Checkout Full name Address Email Card number"),
    ev("model", 2, **usage(2210, 120, 0.0015)),
    ev(
        "result",
        2,
        action='type [27] input "Full name" text="Ada Lovelace"',
        ok=True,
        level="auto",
        message='ok (keyboard); value now "Ada Lovelace"',
    ),
    ev(
        "result",
        2,
        action='type [31] input "Card number" text="4242"',
        ok=False,
        level="confirm",
        message="declined: the user declined: denied in the TUI",
    ),
    ev("observe", 3, url=URL, title="Checkout", text="Checkout Full name Address Email Card number"),
    ev("error", 3, error="parse_error", message="no action in the reply"),
]
FINISH = ev(
    "finish",
    3,
    result={
        "success": True,
        "answer": "Ordered the White Desk Lamp (order KITE-10001).",
        "stop_reason": "done",
        "steps": 3,
        "run_dir": RUN_DIR,
    },
)


def fed_run_screen(events: list[RunEvent]) -> RunScreen:
    screen = RunScreen(TASK, clock=fixed_clock())

    def feed() -> None:
        for event in events:
            screen.on_agent_event(event)
        screen.fed = True  # type: ignore[attr-defined]

    screen.call_after_refresh(feed)
    return screen


def place_order_request() -> ConfirmRequest:
    element = Element(
        index=34,
        tag="button",
        kind="button",
        role="button",
        name="Place order",
        type="submit",
        rect=Rect(x=10, y=400, width=120, height=32),
    )
    decision = Decision(
        level=ConfirmLevel.CONFIRM,
        rule="sensitive_click",
        reasons=[
            "submit-like button 'Place order' on a sensitive page (URL matches 'checkout')",
        ],
    )
    return ConfirmRequest(
        action={"action": "click", "index": 34}, decision=decision, element=element, url=URL
    )
